"""Citations stage: reference lists out of parsed papers, resolved against seed titles into edges."""
