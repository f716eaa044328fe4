"""``reflong-build export``: a build as a folder that lm-evaluation-harness and Inspect run as is.

Evaluators run long-context benchmarks through their harness, not through ours. The export is
self-contained (``data/<config>.jsonl`` beside the harness files and a ``utils.py`` that carries
our own answer parser and metrics), so the harness's environment needs no reflong-build, and its
figures are ours: the same prompt bytes, the same parser, the same metrics, groups weighted by size
so a subset's group equals ``eval score``'s pooled overall.

One job per module: ``samples`` (a build's tasks as harness samples), ``standalone`` (the text of
``utils.py``), ``harness_glue`` (the part of ``utils.py`` the harnesses call), ``lm_eval_files``
and ``inspect_files`` (each harness's files), ``readme`` and ``write`` (the folder, atomically).
"""
