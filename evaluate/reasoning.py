"""Reasoning models in ``eval run``: what to send them, and what of their reply is the answer.

Why a module of its own: reasoning models (OpenAI's o1/o3/o4-mini/gpt-5, DeepSeek-R1, Qwen3 in
thinking mode) differ from chat models in three ways that would otherwise break a run or its score.

1. **They refuse parameters chat models take.** OpenAI's answer a 400 ``unsupported_parameter``
   (``"Unsupported parameter: 'temperature' is not supported with this model."``, the same for
   ``top_p``; ``'max_tokens' ... Use 'max_completion_tokens' instead.``) or ``unsupported_value``
   (``"'temperature' does not support 0 with this model. Only the default (1) value is
   supported."``). ``adaptation`` reads such a 400 (its ``param`` and ``code``) into what to change:
   drop ``temperature`` / ``top_p`` (the model samples at its default), send ``max_tokens``'s value
   as ``max_completion_tokens``. The runner retries the request once so changed and keeps the
   change for the rest of the run (``Adaptations``), so a 100-prompt run costs one refused request
   per parameter, not 100; the manifest records each change and the error that caused it.
2. **They spend tokens on reasoning**, counted in ``usage.completion_tokens_details
   .reasoning_tokens`` (openai-python ``CompletionTokensDetails``) and billed as output;
   ``reasoning_tokens`` reads it (0 when the endpoint does not report it).
3. **Their reply may carry the reasoning.** DeepSeek's API and vLLM's reasoning parsers put it in
   ``message.reasoning_content`` (never read as the answer); a model served without a parser
   writes ``<think>...</think>`` before the answer in ``content``. The reasoning drafts answers in
   the prompt's own format ("Papers: {...}"), so scoring it would score drafts: ``final_answer``
   keeps only what follows the reasoning. A reply whose ``<think>`` never closes (the token cap
   ended the reasoning) has no answer: empty, scored as the empty set; the manifest counts such
   replies (``cut_at_token_cap``) and ``eval run`` says to raise the cap.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)
SAMPLING_PARAMS = ("temperature", "top_p")
REFUSAL_CODES = ("unsupported_parameter", "unsupported_value")


def final_answer(content: str | None) -> tuple[str, int]:
    """The answer in ``content`` with any ``<think>`` reasoning removed, and how many characters
    of reasoning were removed (0: the content is returned unchanged, byte for byte)."""
    if content is None:
        return "", 0
    if THINK_OPEN not in content and THINK_CLOSE not in content:
        return content, 0
    text = _THINK_BLOCK.sub("", content)
    if THINK_CLOSE in text:  # the chat template opened <think> in the prompt: reasoning leads
        text = text.rsplit(THINK_CLOSE, 1)[1]
    if THINK_OPEN in text:  # an unclosed block: the cap ended the reasoning before any answer
        text = text.split(THINK_OPEN, 1)[0]
    answer = text.strip()
    return answer, len(content) - len(answer)


def reasoning_field_chars(message) -> int:
    """Characters of reasoning an endpoint returned beside the answer (``reasoning_content``, or
    OpenRouter's ``reasoning``), 0 when none: recorded, never scored."""
    extra = getattr(message, "model_extra", None) or {}
    text = extra.get("reasoning_content") or extra.get("reasoning")
    return len(text) if isinstance(text, str) else 0


def reasoning_tokens(usage) -> int:
    """``usage.completion_tokens_details.reasoning_tokens``, or 0 when not reported."""
    details = getattr(usage, "completion_tokens_details", None)
    return int(getattr(details, "reasoning_tokens", None) or 0)


@dataclass(frozen=True)
class Adaptation:
    """One change a refused parameter calls for: drop it, or send its value under another name."""

    param: str
    rename_to: str | None = None

    @property
    def action(self) -> str:
        return f"sent as {self.rename_to}" if self.rename_to else "dropped"


def adaptation(code: str | None, param: str | None) -> Adaptation | None:
    """What to change for a 400 with this ``code`` and ``param``, or None when it is no refusal
    of a parameter we can do without (then the request fails as before)."""
    if code not in REFUSAL_CODES or not param:
        return None
    if param in SAMPLING_PARAMS:
        return Adaptation(param)
    if param == "max_tokens" and code == "unsupported_parameter":
        return Adaptation(param, "max_completion_tokens")
    return None


class Adaptations:
    """The changes made during one run, applied to every request after the refusal (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[str, dict] = {}
        self._by_param: dict[str, Adaptation] = {}

    def apply(self, params: dict) -> dict:
        """``params`` with every change made so far."""
        with self._lock:
            changes = list(self._by_param.values())
        out = dict(params)
        for change in changes:
            if change.param in out:
                value = out.pop(change.param)
                if change.rename_to and change.rename_to not in out:
                    out[change.rename_to] = value
        return out

    def record(self, change: Adaptation, message: str) -> None:
        """Remember ``change`` for the run; count every request refused for it."""
        with self._lock:
            entry = self._made.setdefault(
                change.param, {"action": change.action, "error": message, "refused_requests": 0}
            )
            entry["refused_requests"] += 1
            self._by_param[change.param] = change

    def summary(self) -> dict[str, dict]:
        with self._lock:
            return {k: dict(v) for k, v in sorted(self._made.items())}
