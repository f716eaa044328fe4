"""One polite, retried HTTP call to a citation index: the loop both providers share.

Why one piece: Semantic Scholar and OpenAlex differ in what their answers mean (which status is
fatal, which 429 is a spent budget), not in how a request is made polite and retried. The loop
waits the gate, sends, turns timeouts and connection failures into retries (a host that never
answers is ``IndexUnreachable`` after ``connect_retries``, so ``--citation-index auto`` can fall
back), and backs off on what the provider's ``answer`` calls retryable.

A provider whose 429 says nothing about when to come back (Semantic Scholar sends no
``Retry-After``, and its unkeyed pool is shared by every caller, so it refuses even below the
published rate) passes a ``BusyRule``: its 429s are then waited out on their own exponential
backoff within a budget of seconds, apart from ``--retries`` (which still counts 5xx and timeouts),
and a spell longer than the budget stops the run in one line (``ServiceBusyError``: the answers so
far are in the store, a rerun resumes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from reflong.common.errors import NetworkError, ServiceBusyError
from reflong.ingest.index.base import IndexUnreachable
from reflong.ingest.netpolicy import NetPolicy, Politeness, connection_reason, retry_after_seconds

log = logging.getLogger(__name__)

RETRY = object()  # what ``answer`` returns for a response worth asking again (429, 5xx)


@dataclass(frozen=True)
class BusyRule:
    """How a provider's 429 spells are waited out: ``first`` s, doubling up to ``longest`` s a
    wait, until ``budget`` s have been spent on one request; then ``give_up(seconds waited)`` is
    the one-line message of the ``ServiceBusyError``."""

    first: float
    longest: float
    budget: float
    give_up: Callable[[float], str]

    def wait(self, spell_try: int, retry_after: float | None, waited: float) -> float | None:
        """Seconds before the next try of a 429 spell, or None when the budget is spent."""
        left = self.budget - waited
        if left <= 0:
            return None
        wait = min(self.first * 2 ** (spell_try - 1), self.longest)
        if retry_after is not None:  # should the provider ever send one, it wins
            wait = max(wait, retry_after)
        return min(wait, left)


def call_index(
    send: Callable[[], requests.Response],
    answer: Callable[[requests.Response], Any],
    *,
    who: str,
    policy: NetPolicy,
    politeness: Politeness,
    on_retry: Callable[[], None],
    give_up_hint: str,
    busy: BusyRule | None = None,
    on_busy_wait: Callable[[float], None] | None = None,
) -> Any:
    """``answer(resp)`` returns the value, raises a fatal error, or returns ``RETRY``.

    ``who`` names the index in messages ("OpenAlex at api.openalex.org"); ``give_up_hint`` ends
    the message when retries run out ("raise --index-delay"). With ``busy``, a 429 is waited out by
    that rule instead of counting as a retry; ``on_busy_wait(seconds)`` is told every such wait."""
    attempt, connect_failures = 0, 0
    spell_tries, spell_waited = 0, 0.0
    while True:
        problem, retry_after = "", None
        politeness.wait()
        try:
            resp = send()
        except requests.ReadTimeout:
            problem = f"no answer within {policy.timeout:g} s"
        except requests.ConnectionError as exc:
            connect_failures += 1
            if connect_failures > policy.connect_retries:
                raise IndexUnreachable(
                    f"cannot reach {who} ({connection_reason(exc)}); check the network, or use --citation-index none"
                ) from None
            problem = f"connection failed ({connection_reason(exc)})"
        else:
            value = answer(resp)
            if value is not RETRY:
                return value
            problem, retry_after = f"HTTP {resp.status_code}", retry_after_seconds(resp)
            if busy is not None and resp.status_code == 429:
                spell_tries += 1
                wait = busy.wait(spell_tries, retry_after, spell_waited)
                if wait is None:
                    raise ServiceBusyError(busy.give_up(spell_waited))
                spell_waited += wait
                log.warning(
                    "%s answered 429 (Too Many Requests)%s; waiting %.1f s (%.0f of %.0f s of this spell)",
                    who,
                    f", Retry-After {retry_after:g} s" if retry_after is not None else " without Retry-After",
                    wait,
                    spell_waited,
                    busy.budget,
                )
                on_retry()
                if on_busy_wait is not None:
                    on_busy_wait(wait)
                politeness.sleep(wait)
                continue
        attempt += 1
        if attempt > policy.retries:
            if problem.startswith("connection failed"):
                raise IndexUnreachable(
                    f"cannot reach {who} ({problem}); check the network, or use --citation-index none"
                )
            raise NetworkError(
                f"{who} kept failing ({problem}) after {attempt} tries; "
                f"try again later (answers so far are kept) or {give_up_hint}"
            )
        wait = policy.backoff_for(attempt, retry_after)
        log.info("index request failed (%s); retry %d in %.1f s", problem, attempt, wait)
        on_retry()
        politeness.sleep(wait)
