"""Training splits disjoint from a test build (issue 22, item 2)."""
