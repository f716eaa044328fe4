"""A synthetic arXiv for offline demos and scale tests: seeds, citing papers and distractors with
dates and versions, rendered to real two-column PDFs, with the ground truth written beside them."""
