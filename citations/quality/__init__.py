"""How good the ground truth is: labelled sets scored, label accuracy, agreement with the
citation indexes."""
