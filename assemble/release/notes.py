"""Release notes, generated from the store: what a release adds and what changed in earlier ones.

A release's notes compare the store now with the store as the previous release saw it, which that
release's manifest keeps (``release.json``: the newest verdict's id, the resolver's fingerprint,
each released paper's newest version and withdrawal). So they name exactly:

- the keys and tasks this release adds;
- tasks of earlier releases whose ground truth the store now decides otherwise, and why: a verdict
  recorded since the previous release, or a resolver changed since (version or thresholds);
- papers of earlier releases that have a newer version since (the released text is the older one,
  which may cite differently), and papers withdrawn since. For each such paper shown as a
  document, the notes say whether its answers were rechecked against the new version's text and
  what that changed: rechecked when the store holds that version parsed and resolved (it was read
  for some window), which task answers would then differ and at which document index; otherwise
  plainly "not rechecked" (a refresh fetches only its own window's PDFs, so a new version of an
  older paper is usually not read). The released answers stay right for the released text.

Earlier releases are never rewritten by a refresh (a published release must stay what it was):
the notes are their errata, and ``refresh --since MONTH`` rebuilds one on request.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reflong.assemble.release.store_view import PairStatus, PaperState, ReleasedTask, split_ref


@dataclass(frozen=True)
class NewText:
    """What the store holds of a newer version of a released document (``"IDvN"``): whether that
    version's reference list was parsed, and the decision now on it for each key it is asked of."""

    parsed: bool
    statuses: Mapping[str, PairStatus] = field(default_factory=dict)  # key -> (new ref, key) status


@dataclass(frozen=True)
class EarlierRelease:
    label: str
    tasks: Sequence[ReleasedTask]


@dataclass
class ReleaseChanges:
    release: str
    previous: str | None
    keys_added: list[tuple[str, str]] = field(default_factory=list)  # (arXiv id, title)
    tasks_added: dict[str, int] = field(default_factory=dict)  # config -> tasks
    truth_changed: list[dict] = field(default_factory=list)
    new_versions: list[dict] = field(default_factory=list)
    withdrawn: list[dict] = field(default_factory=list)
    verdicts_since: int = 0
    resolver: dict = field(default_factory=dict)  # {"before": ..., "now": ...} when it changed
    store_rows: dict = field(default_factory=dict)  # ``db.stats.store_rows`` now
    store_rows_before: dict | None = None  # as the previous release recorded them (None: not recorded)

    def to_json(self) -> dict:
        return {
            "release": self.release,
            "previous": self.previous,
            "keys_added": [k for k, _ in self.keys_added],
            "tasks_added": dict(self.tasks_added),
            "truth_changed": self.truth_changed,
            "new_versions": self.new_versions,
            "withdrawn": self.withdrawn,
            "verdicts_since": self.verdicts_since,
            "resolver": self.resolver,
            "store_growth": store_growth(self.store_rows, self.store_rows_before),
        }


def _flat(rows: Mapping) -> dict[str, int]:
    """{"edges": {"accept": 3}} -> {"edges.accept": 3}."""
    out: dict[str, int] = {}
    for name, value in rows.items():
        if isinstance(value, Mapping):
            out.update({f"{name}.{k}": int(v) for k, v in value.items()})
        else:
            out[name] = int(value)
    return out


def store_growth(now: Mapping, before: Mapping | None) -> dict[str, int] | None:
    """Rows added since the previous release, per kind (None where it recorded no counts)."""
    if before is None or not now:
        return None
    then = _flat(before)
    return {name: n - then.get(name, 0) for name, n in _flat(now).items()}


def _store_lines(c: ReleaseChanges) -> list[str]:
    """The "## Store" section: what the store holds, and how much it grew since the last release."""
    if not c.store_rows:
        return []
    growth = store_growth(c.store_rows, c.store_rows_before)
    lines = ["", "## Store", ""]
    for name, n in _flat(c.store_rows).items():
        since = ""
        if growth is not None:
            since = f" ({growth[name]:+,} since release {c.previous})"
        elif c.previous:
            since = f" (release {c.previous} recorded no counts)"
        lines.append(f"- {name}: {n:,}{since}")
    return lines


def _uses(earlier: Sequence[EarlierRelease]) -> dict[str, list[str]]:
    """arXiv id -> the release tasks that show it (as a document or as the key), sorted."""
    out: dict[str, set[str]] = defaultdict(set)
    for release in earlier:
        for task in release.tasks:
            for ref in task.documents:
                out[split_ref(ref)[0]].add(f"{release.label}/{task.name}")
            out[task.key].add(f"{release.label}/{task.name}")
    return {k: sorted(v) for k, v in out.items()}


def compute_changes(
    release: str,
    tasks: Sequence[ReleasedTask],
    earlier: Sequence[EarlierRelease],
    previous: Mapping | None,
    statuses: Mapping[tuple[str, str], PairStatus],
    states: Mapping[str, PaperState],
    resolver_now: Mapping[str, str],
    earlier_keys: set[str],
    new_texts: Mapping[str, NewText] | None = None,
) -> ReleaseChanges:
    """The changes for ``release``'s notes.

    ``previous``: the previous release's manifest (None for the first release); ``statuses``: the
    store's decision now on every (document, key) pair of the earlier releases' tasks; ``states``:
    every earlier released paper's versions now; ``earlier_keys``: keys any earlier release used;
    ``new_texts``: newest versions of released documents by ref (``NewText``), for the recheck."""
    changes = ReleaseChanges(release, previous.get("release") if previous else None)
    titles = {t.key: t.key_title for t in tasks}
    changes.keys_added = [(k, titles[k]) for k in sorted(titles) if k not in earlier_keys]
    counts: dict[str, int] = defaultdict(int)
    for task in tasks:
        counts[task.config] += 1
    changes.tasks_added = dict(sorted(counts.items()))
    if previous is None:
        return changes
    store_then = previous.get("store", {})
    audit_then = int(store_then.get("audit_through", 0))
    resolver_then = previous.get("resolver", {})
    if resolver_then.get("fingerprint") != resolver_now.get("fingerprint"):
        changes.resolver = {"before": dict(resolver_then), "now": dict(resolver_now)}
    changes.verdicts_since = len({s.verdict_id for s in statuses.values() if s.verdict_id > audit_then})

    by_pair: dict[tuple[str, str], dict] = {}
    for rel in earlier:
        for task in rel.tasks:
            for ref in task.documents:
                pair = (ref, task.key)
                status = statuses.get(pair)
                was = ref in task.positives
                if status is None or status.positive == was:
                    continue
                if status.verdict_id > audit_then:
                    why = f"audit {status.verdict} by {status.verdict_who}" + (
                        f": {status.verdict_why}" if status.verdict_why else ""
                    )
                elif changes.resolver and status.resolvers - {resolver_then.get("fingerprint")}:
                    why = f"resolver {resolver_then.get('version')} -> {resolver_now.get('version')}"
                else:
                    continue  # decided so already at the previous release: not a change since
                entry = by_pair.setdefault(
                    pair,
                    {
                        "document": ref,
                        "key": task.key,
                        "was": "positive" if was else "negative",
                        "now": "positive" if status.positive else "negative",
                        "why": why,
                        "tasks": [],
                    },
                )
                entry["tasks"].append(f"{rel.label}/{task.name}")
    changes.truth_changed = [by_pair[p] for p in sorted(by_pair)]

    papers_then = store_then.get("papers", {})
    uses = _uses(earlier)
    for arxiv_id in sorted(papers_then):
        then = papers_then[arxiv_id]
        now = states.get(arxiv_id)
        if now is None:
            continue
        tasks_using = uses.get(arxiv_id, [])
        if now.withdrawn and not then.get("withdrawn"):
            changes.withdrawn.append(
                {
                    "arxiv_id": arxiv_id,
                    "version": now.latest_version,
                    "date": now.withdrawn_date,
                    "comment": now.comment,
                    "tasks": len(tasks_using),
                    "releases": sorted({t.split("/")[0] for t in tasks_using}),
                }
            )
        elif now.latest_version > int(then.get("latest_version", 0)):
            entry = {
                "arxiv_id": arxiv_id,
                "before": int(then.get("latest_version", 0)),
                "now": now.latest_version,
                "tasks": len(tasks_using),
                "releases": sorted({t.split("/")[0] for t in tasks_using}),
            }
            entry.update(_recheck(arxiv_id, now.latest_version, earlier, new_texts or {}))
            changes.new_versions.append(entry)
    return changes


def _recheck(
    arxiv_id: str, version: int, earlier: Sequence[EarlierRelease], new_texts: Mapping[str, NewText]
) -> dict:
    """Whether the answers of the tasks showing ``arxiv_id`` as a document were rechecked against
    its version ``version``, and the answers that version's text would change (task, index)."""
    new_ref = f"{arxiv_id}v{version}"
    text = new_texts.get(new_ref)
    shown = [
        (rel.label, task, i, ref)
        for rel in earlier
        for task in rel.tasks
        for i, ref in enumerate(task.documents)
        if split_ref(ref)[0] == arxiv_id
    ]
    if not shown:
        return {"as_document": 0, "rechecked": False, "answers_changed": []}
    if text is None or not text.parsed:
        return {"as_document": len(shown), "rechecked": False, "answers_changed": []}
    changed = []
    for label, task, i, ref in shown:
        was = ref in task.positives
        status = text.statuses.get(task.key)
        now = bool(status and status.positive)
        if now != was:
            changed.append(
                {
                    "task": f"{label}/{task.name}",
                    "index": i,
                    "was": "positive" if was else "negative",
                    "now": "positive" if now else "negative",
                }
            )
    return {"as_document": len(shown), "rechecked": True, "answers_changed": changed}


def _recheck_text(e: Mapping) -> str:
    """The notes' words on a new version's effect on answers (``_recheck``'s fields)."""
    if not e.get("as_document"):
        return "not shown as a document (as a key only: answers do not depend on its text)"
    if not e.get("rechecked"):
        return (
            f"answers NOT rechecked against v{e['now']}: the store holds no parsed text of it (a refresh "
            f"reads only its own window's PDFs); the {e['as_document']} tasks showing it keep "
            f"v{e['before']}'s text, and their answers are right for that text"
        )
    changed = e.get("answers_changed", [])
    if not changed:
        return f"answers rechecked against v{e['now']}'s text: unchanged in all {e['as_document']} tasks showing it"
    shown = "; ".join(f"{c['task']} document {c['index']} {c['was']} -> {c['now']}" for c in changed[:12])
    more = f"; ... ({len(changed) - 12} more)" if len(changed) > 12 else ""
    return (
        f"answers rechecked against v{e['now']}'s text: {len(changed)} of {e['as_document']} would change "
        f"({shown}{more}); the released tasks keep the older text, whose answers stand"
    )


def render_notes(changes: ReleaseChanges, window: str, tool_version: str) -> str:
    """RELEASE_NOTES.md: deterministic (no dates of the run), from ``changes`` only."""
    c = changes
    total = sum(c.tasks_added.values())
    lines = [
        f"# Release {c.release}",
        "",
        f"Window `{window}` (keys first published in {c.release}); built by reflong-build {tool_version}. "
        + (f"Compared with release {c.previous}." if c.previous else "The first release in this folder."),
        "",
        "## Added",
        "",
        f"- Tasks: {total} (" + ", ".join(f"{cfg} {n}" for cfg, n in c.tasks_added.items()) + ")",
        f"- Keys: {len(c.keys_added)} new",
    ]
    lines += [f"  - {k}: {title}" for k, title in c.keys_added]
    lines += _store_lines(c)
    if c.previous is None:
        return "\n".join(lines).rstrip() + "\n"
    lines += ["", f"## Changed since release {c.previous}", ""]
    if c.resolver:
        lines.append(
            f"- Resolver: {c.resolver['before'].get('version')} ({c.resolver['before'].get('fingerprint')}) -> "
            f"{c.resolver['now'].get('version')} ({c.resolver['now'].get('fingerprint')})"
        )
    lines.append(f"- Audit verdicts recorded since on released pairs: {c.verdicts_since}")
    lines += ["", "### Tasks whose ground truth changed", ""]
    if not c.truth_changed:
        lines.append("None.")
    for e in c.truth_changed:
        shown = ", ".join(e["tasks"][:12]) + (
            f", ... ({len(e['tasks']) - 12} more)" if len(e["tasks"]) > 12 else ""
        )
        lines.append(
            f"- {e['document']} -> key {e['key']}: {e['was']} -> {e['now']} ({e['why']}); "
            f"{len(e['tasks'])} tasks: {shown}"
        )
    lines += ["", "### Papers with a new version since", ""]
    if not c.new_versions:
        lines.append("None.")
    for e in c.new_versions:
        lines.append(
            f"- {e['arxiv_id']}: v{e['before']} -> v{e['now']} (the released text keeps its version); "
            f"in {e['tasks']} tasks of {', '.join(e['releases']) or 'no release'}; {_recheck_text(e)}"
        )
    lines += ["", "### Papers withdrawn since", ""]
    if not c.withdrawn:
        lines.append("None.")
    for e in c.withdrawn:
        why = f": {e['comment']}" if e.get("comment") else ""
        lines.append(
            f"- {e['arxiv_id']} (withdrawal notice v{e['version']}"
            + (f", {e['date']}" if e.get("date") else "")
            + f"{why}); in {e['tasks']} tasks of {', '.join(e['releases']) or 'no release'}"
        )
    return "\n".join(lines).rstrip() + "\n"
