"""How a citation-index provider declares itself, so the CLI and the plan can be derived from it.

A provider module (``semantic_scholar.py``, ``openalex.py``) ends with one ``PROVIDER =
IndexProvider(...)``: its name, default URL, the environment variable of its API key, its
politeness gap as the help text states it, a one-line description, its own options, and how to
open its client from the settings. ``registry.py`` lists the providers; nothing else names them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from reflong.ingest.index.base import CitationIndex


@dataclass(frozen=True)
class ProviderOption:
    """One option of one provider, generated into ``ingest`` and ``paper`` (``--openalex-mailto``).

    Its value reaches the provider through ``PlanSettings.index_options[option.key]``, so a new
    option needs no settings field and no CLI edit."""

    flag: str  # "--openalex-mailto"
    help: str
    envvar: str | None = None
    metavar: str | None = None
    url: bool = False  # checked as an http(s) URL while the options are read (a usage error)

    @property
    def key(self) -> str:
        """The click parameter name, and the key in ``PlanSettings.index_options``."""
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class IndexSetup:
    """What a provider is opened with: everything the settings say about it."""

    url: str  # its --<name>-url, or its default URL
    api_key: str | None  # from its key variable, None when unset or empty
    delay: float | None  # --index-delay; None: the provider's own published gap
    options: Mapping[str, str | None]  # every provider option by key (``openalex_mailto``)

    def given(self, option: str) -> str | None:
        return self.options.get(option)


@dataclass(frozen=True)
class AutoRule:
    """When ``--citation-index auto`` picks this provider, and why it did not (for the plan line)."""

    applies: Callable[[IndexSetup], bool]
    declined: str  # e.g. "no S2_API_KEY and no --s2-url; --citation-index s2 uses the shared pool"


@dataclass(frozen=True)
class IndexProvider:
    """A citation index as the CLI and the plan see it (the client itself is ``open``'s business)."""

    name: str  # the --citation-index value, the --<name>-url option, the store's ``source``
    default_url: str
    key_env: str  # environment variable of its API key
    url_help: str  # --<name>-url's help; " [default: <default_url>]." is added
    description: str  # its part of --citation-index's help: "OpenAlex (openalex; key from ...)"
    delay_note: str  # its published gap, in --index-delay's help: "OpenAlex 0.11"
    # The client for a setup, and what the plan line says of it inside the parentheses after
    # "<name> at <url>" (key or pool, gap): e.g. "key, 1.1 s/request".
    open: Callable[[IndexSetup], tuple[CitationIndex, str]]
    options: tuple[ProviderOption, ...] = ()  # beyond --<name>-url
    auto: AutoRule | None = None  # None: chosen only by name

    @property
    def url_option(self) -> ProviderOption:
        return ProviderOption(
            f"--{self.name}-url", f"{self.url_help} [default: {self.default_url}].", url=True
        )

    @property
    def all_options(self) -> tuple[ProviderOption, ...]:
        """Its options in CLI order: the URL first."""
        return (self.url_option, *self.options)

    def setup(self, options: Mapping[str, str | None], delay: float | None) -> IndexSetup:
        return IndexSetup(
            url=options.get(self.url_option.key) or self.default_url,
            api_key=os.environ.get(self.key_env) or None,
            delay=delay,
            options=options,
        )
