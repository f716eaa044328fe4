"""Finishing a release: its notes and manifest from the store, then the folder's card and list.

Called after the ``paper`` build of the window wrote its outputs into ``RELEASES/<label>``. The
release manifest is written last: until it exists the release is unfinished, and a rerun of the
refresh builds it again (byte-identical from the same store) and finishes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from reflong import __version__
from reflong.assemble.manifest import MANIFEST_NAME
from reflong.assemble.release.card import write_releases_index
from reflong.assemble.release.layout import (
    NOTES_FILE,
    RELEASE_FILE,
    RELEASE_FORMAT,
    drop_start_record,
    finished_releases,
    previous_release,
)
from reflong.assemble.release.notes import EarlierRelease, ReleaseChanges, compute_changes, render_notes
from reflong.assemble.release.store_view import (
    audit_through,
    newer_texts,
    pair_statuses,
    paper_states,
    release_build,
    released_tasks,
    split_ref,
)
from reflong.citations.thresholds import resolver_identity
from reflong.common.atomic_files import write_atomic
from reflong.common.errors import ReflongError
from reflong.common.hashing import sha256_file
from reflong.db import session_for
from reflong.db.stats import store_rows


@dataclass
class PublishedRelease:
    label: str
    folder: Path
    changes: ReleaseChanges
    files: list[Path]

    def line(self) -> str:
        c = self.changes
        return (
            f"release {self.label}: {sum(c.tasks_added.values())} tasks, {len(c.keys_added)} new keys; "
            f"since {c.previous or 'nothing (first release)'}: {len(c.truth_changed)} ground-truth changes, "
            f"{len(c.new_versions)} new versions, {len(c.withdrawn)} withdrawals; notes in "
            f"{self.folder / NOTES_FILE}"
        )


def publish_release(
    engine: Engine, root: Path, label: str, window: str, options: dict | None = None
) -> PublishedRelease:
    """Write ``RELEASE_NOTES.md`` and ``release.json`` for ``root/label``, then the top-level card.

    ``options``: the command's options that shape a release (``reflong.cli.release_options``),
    recorded so that the next refresh builds its window the same way."""
    root, folder = Path(root), Path(root) / label
    try:
        build_manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReflongError(f"{folder / MANIFEST_NAME} cannot be read ({exc}): rerun the refresh") from None
    earlier_manifests = [r.manifest for r in finished_releases(root) if r.label < label]
    prev = previous_release(root, label)
    with session_for(engine) as session:
        build = release_build(session, folder, window)
        if build is None:
            raise ReflongError(
                f"the store holds no build of window {window} written to {folder}: rerun the refresh"
            )
        tasks = released_tasks(session, build.id)
        earlier = []
        for m in earlier_manifests:
            b = release_build(
                session, root / m["release"], m["window"], m.get("outputs", {}).get(MANIFEST_NAME)
            )
            earlier.append(EarlierRelease(m["release"], released_tasks(session, b.id) if b else []))
        pairs = {(ref, t.key) for rel in earlier for t in rel.tasks for ref in t.documents}
        statuses = pair_statuses(session, pairs)
        ids = {split_ref(ref)[0] for t in tasks for ref in t.documents} | {t.key for t in tasks}
        ids |= {split_ref(ref)[0] for rel in earlier for t in rel.tasks for ref in t.documents}
        ids |= {t.key for rel in earlier for t in rel.tasks}
        states = paper_states(session, ids)
        through = audit_through(session)
        new_texts = newer_texts(session, earlier, states)
        rows = store_rows(session)
    earlier_keys = {k for m in earlier_manifests for k in m.get("keys", [])}
    resolver = resolver_identity()
    changes = compute_changes(
        label,
        tasks,
        earlier,
        prev.manifest if prev else None,
        statuses,
        states,
        resolver,
        earlier_keys,
        new_texts,
    )
    changes.store_rows = rows
    changes.store_rows_before = (prev.manifest.get("store") or {}).get("rows") if prev else None
    notes = folder / NOTES_FILE
    write_atomic(notes, render_notes(changes, window, __version__).encode("utf-8"))
    outputs = {e["path"]: e["sha256"] for e in build_manifest.get("outputs", [])}
    outputs[MANIFEST_NAME] = sha256_file(folder / MANIFEST_NAME)
    outputs[NOTES_FILE] = sha256_file(notes)
    manifest = {
        "format": RELEASE_FORMAT,
        "release": label,
        "window": window,
        "tool": "reflong-build",
        "version": __version__,
        "resolver": resolver,
        "settings": build_manifest.get("settings", {}),
        **({"options": dict(sorted(options.items()))} if options is not None else {}),
        "previous": prev.label if prev else None,
        "tasks": dict(changes.tasks_added),
        "keys": sorted({t.key for t in tasks}),
        "outputs": dict(sorted(outputs.items())),
        "changes": changes.to_json(),
        "store": {
            "audit_through": through,
            "papers": {a: states[a].to_json() for a in sorted(states)},
            "rows": rows,
        },
    }
    path = folder / RELEASE_FILE
    write_atomic(path, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    drop_start_record(folder)  # release.json now records the options: finished
    all_manifests = [r.manifest for r in finished_releases(root)]
    files = [notes, path, *write_releases_index(root, all_manifests)]
    return PublishedRelease(label, folder, changes, files)
