"""The citation-index providers by name: the one list the CLI and the PDF plan read.

Adding a provider takes two edits:

1. its module in ``ingest/index/``: the client (the ``CitationIndex`` protocol of ``base.py``)
   and, at its end, ``PROVIDER = IndexProvider(...)`` (``provider.py``): name, default URL, key
   variable, published gap, a one-line description, its own options, how to open it;
2. one line in ``PROVIDERS`` below.

Everything else is derived from this list, in its order: the ``--citation-index`` choices (auto,
the providers, none) and help text, each provider's ``--<name>-url`` and declared options in
``ingest`` and ``paper``, ``--index-delay``'s help, the plan's opening of the chosen index and its
description line, and the ``auto`` rule (the first provider whose ``AutoRule`` holds; when none
does, the plan line gives every provider's reason).

Why the provider declares its options rather than the CLI: a provider's URL (a local stand-in in
tests and benches) and its own settings (OpenAlex's mailto) would otherwise be a click option, a
``PlanSettings`` field and a line of ``plan_settings`` each. Declared once, they are generated into
the CLI and reach the provider as one mapping, ``PlanSettings.index_options``, keyed by the
option's name (``openalex_mailto``); existing options keep their names, defaults and help.

``register`` adds a provider at run time, for code that cannot edit this list (the test that
shows a third provider becomes selectable); it must run before ``reflong.cli`` is imported,
since the options are generated when the commands are defined.
"""

from __future__ import annotations

from collections.abc import Mapping

from reflong.ingest.index import openalex, semantic_scholar
from reflong.ingest.index.provider import IndexProvider

PROVIDERS: list[IndexProvider] = [
    semantic_scholar.PROVIDER,
    openalex.PROVIDER,
]

AUTO, NONE = "auto", "none"  # the two choices that are not a provider


def register(provider: IndexProvider) -> None:
    """Add ``provider`` after the others (its name must be new, and not auto or none)."""
    if provider.name in (AUTO, NONE) or provider.name in names():
        raise ValueError(f"a citation index named {provider.name!r} exists already")
    PROVIDERS.append(provider)


def names() -> list[str]:
    return [p.name for p in PROVIDERS]


def choices() -> list[str]:
    """``--citation-index`` values: auto, every provider, none."""
    return [AUTO, *names(), NONE]


def provider(name: str) -> IndexProvider:
    for p in PROVIDERS:
        if p.name == name:
            return p
    raise ValueError(f"no citation index named {name!r}; known: {', '.join(names())}")


def auto_choice(options: Mapping[str, str | None], delay: float | None) -> tuple[IndexProvider | None, str]:
    """The provider ``auto`` picks, or None and why not (every provider's reason, then a hint for
    each provider chosen only by name whose URL was given anyway)."""
    for p in PROVIDERS:
        if p.auto is not None and p.auto.applies(p.setup(options, delay)):
            return p, ""
    why = "; ".join(p.auto.declined for p in PROVIDERS if p.auto is not None) or "no index is chosen by auto"
    hints = "".join(
        f" (--{p.name}-url is used with --citation-index {p.name})"
        for p in PROVIDERS
        if p.auto is None and options.get(p.url_option.key)
    )
    return None, f"none ({why}){hints}"
