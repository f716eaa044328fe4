"""Evaluate models and baselines on built tasks: parsing, metrics, runs, baselines."""
