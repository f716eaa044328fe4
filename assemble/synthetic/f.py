"""Ref-Long-F candidates: one SummHay news haystack per topic, insights as keys.

Each of the 100 SummHay documents is a candidate, in file order, with its text unchanged; the keys
it holds are its ``insights_included`` ids (in that order, which is the release's candidate-key
order); a key is written in the JSON and the prompt as the insight sentence. The release's three
topics keep their released names (financial_market, foot_locker, twitter); another haystack is
named after its file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from reflong.assemble.synthetic.build import Candidate, SettingSpec
from reflong.common.errors import ReflongError

#: SummHay topic -> Ref-Long-F name (summhay/FORMAT.md: news5, news3, news4).
RELEASE_TOPICS = {
    "Current Financial Market Dynamics and Institutional Responses": "financial_market",
    "Strategic Growth and Operational Changes at Foot Locker": "foot_locker",
    "Recent Developments and Challenges in Twitter's Algorithms and Services": "twitter",
}
RELEASE_SEED = 2024


@dataclass(frozen=True)
class Haystack:
    name: str
    topic: str
    candidates: list[Candidate]
    insights: dict[str, str]  # insight_id -> insight sentence


def load_summhay(path: Path) -> Haystack:
    """Read one SummHay ``topic_news*.json``; a malformed file is a one-line ReflongError."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        topic = data["topic"]
        insights = {ins["insight_id"]: ins["insight"] for sub in data["subtopics"] for ins in sub["insights"]}
        candidates = [
            Candidate(doc["document_id"], doc["document_text"], tuple(doc["insights_included"]))
            for doc in data["documents"]
        ]
    except FileNotFoundError:
        raise ReflongError(f"SummHay file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise ReflongError(
            f"{path.name} is not a SummHay haystack (topic, subtopics[].insights[], documents[] "
            f"with document_id/document_text/insights_included): {type(exc).__name__} {exc}"
        ) from None
    unknown = sorted({k for c in candidates for k in c.keys if k not in insights})
    if unknown:
        raise ReflongError(f"{path.name}: documents include unknown insight ids, e.g. {unknown[0]}")
    if not candidates:
        raise ReflongError(f"{path.name}: no documents")
    return Haystack(RELEASE_TOPICS.get(topic, path.stem), topic, candidates, insights)


def f_spec(haystack: Haystack, seed: int | str) -> SettingSpec:
    insights = haystack.insights
    return SettingSpec(
        "F",
        haystack.name,
        haystack.candidates,
        seed,
        key_label=lambda insight_id: insights[insight_id],
        context={"topic": haystack.topic},
    )
