"""What a person reads to audit a build: the review queue, verdict sheets, the HTML report and its
plots (they read builds, assemble's output, and the store)."""
