"""Entry fields: a references section split into entries, each parsed and normalised (the
resolver's input: words, field boundaries, printed ids, years)."""
