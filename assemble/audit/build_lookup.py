"""Finding the build a user means: by id, by its outputs folder, or the latest one."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session, select

from reflong.common.errors import ReflongError
from reflong.db.builds import Build


def find_build(session: Session, build_id: int | None = None, out_dir: str | Path | None = None) -> Build:
    """``build_id`` wins; else the latest build written to ``out_dir``; else the latest build."""
    if build_id is not None:
        build = session.get(Build, build_id)
        if build is None:
            raise ReflongError(f"no build {build_id} in the store; `reflong-build stats` lists what it holds")
        return build
    builds = session.exec(select(Build).order_by(Build.id.desc())).all()
    if not builds:
        raise ReflongError("the store has no build yet; run `reflong-build paper` first (or give --db)")
    if out_dir is not None:
        wanted = Path(out_dir).resolve()
        for build in builds:
            if build.out_dir and Path(build.out_dir).resolve() == wanted:
                return build
        # Not the latest build instead: a mistyped folder would report on (and, for `report`,
        # write a page about) a build the user did not name.
        folders = list(dict.fromkeys(b.out_dir for b in builds if b.out_dir))
        shown = ", ".join(folders[:3]) + (f" and {len(folders) - 3} more" if len(folders) > 3 else "")
        raise ReflongError(
            f"--build {out_dir}: no build of this store was written there"
            + (f"; its builds are in {shown}" if shown else "")
            + " (or give --build-id ID; `reflong-build stats` lists the builds)"
        )
    return builds[0]
