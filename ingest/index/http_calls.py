"""One polite, retried HTTP call to a citation index: the loop both providers share.

Why one piece: Semantic Scholar and OpenAlex differ in what their answers mean (which status is
fatal, which 429 is a spent budget), not in how a request is made polite and retried. The loop
waits the gate, sends, turns timeouts and connection failures into retries (a host that never
answers is ``IndexUnreachable`` after ``connect_retries``, so ``--citation-index auto`` can fall
back), and backs off on what the provider's ``answer`` calls retryable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import requests

from reflong.common.errors import NetworkError
from reflong.ingest.index.base import IndexUnreachable
from reflong.ingest.netpolicy import NetPolicy, Politeness, connection_reason, retry_after_seconds

log = logging.getLogger(__name__)

RETRY = object()  # what ``answer`` returns for a response worth asking again (429, 5xx)


def call_index(
    send: Callable[[], requests.Response],
    answer: Callable[[requests.Response], Any],
    *,
    who: str,
    policy: NetPolicy,
    politeness: Politeness,
    on_retry: Callable[[], None],
    give_up_hint: str,
) -> Any:
    """``answer(resp)`` returns the value, raises a fatal error, or returns ``RETRY``.

    ``who`` names the index in messages ("OpenAlex at api.openalex.org"); ``give_up_hint`` ends
    the message when retries run out ("raise --index-delay")."""
    attempt, connect_failures = 0, 0
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
