"""The text of an export's ``utils.py``: our parser and metrics, then the harness glue.

Why copied in rather than imported: the harness's environment should need neither reflong-build
nor its PDF stack, yet score exactly as ``eval score`` does. The copy is the modules' own source,
taken at export time, so there is one parser and one set of metrics to keep right; the tests check
that the written file imports with the standard library alone and scores as ``eval score``.
"""

from __future__ import annotations

import inspect
from types import ModuleType

from reflong.evaluate import metrics, parsing
from reflong.evaluate.export import harness_glue

FUTURE = "from __future__ import annotations"
DROP_FROM = "# --- package imports (dropped in the export) ---"
DROP_TO = "# --- end of package imports ---"


def _body(module: ModuleType) -> str:
    """A module's source without its ``from __future__`` line and without the block of package
    imports, which the file itself defines.

    Why no postponed annotations in the file: lm-eval loads ``utils.py`` without registering it in
    ``sys.modules``, and ``dataclasses`` then fails on string annotations (it looks the module up
    there). Evaluated annotations need Python 3.10, which both harnesses require anyway."""
    lines, out, dropping = inspect.getsource(module).splitlines(), [], False
    for line in lines:
        if line.strip() == DROP_FROM:
            dropping = True
        elif line.strip() == DROP_TO:
            dropping = False
        elif not dropping and line.strip() != FUTURE:
            out.append(line)
    return "\n".join(out).strip("\n")


def utils_text(tool_version: str) -> str:
    """``utils.py``: one file, standard library only (``datasets`` is imported by the lm-eval loader,
    which runs inside lm-eval, where it is installed)."""
    parts = [
        f'"""Ref-Long scoring for lm-evaluation-harness and Inspect, written by reflong-build {tool_version}.\n\n'
        "Sections: the answer parser (reflong/evaluate/parsing.py), the metrics (evaluate/metrics.py),\n"
        "the harness glue (evaluate/export/harness_glue.py), each copied from the tool's source: edit\n"
        'the tool, not this file, and export again."""',
    ]
    for name, module in (("parser", parsing), ("metrics", metrics), ("harness glue", harness_glue)):
        parts.append(f"# ===== {name}: {module.__name__.replace('reflong.', '')} =====\n\n{_body(module)}")
    return "\n\n".join(parts) + "\n"
