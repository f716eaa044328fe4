"""Evidence: each module reads one kind of evidence about a (reference, seed) pair from the
printed string (title layout, first author, years, numbers, containers) and says why."""
