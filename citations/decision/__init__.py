"""The decision: typed evidence about a pair turned into a band (accept, review, reject) with its
reason, by one function."""
