"""Assemble stage: keys, positives and date-safe negatives into tasks, outputs and a manifest."""
