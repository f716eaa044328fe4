"""The 2024-sized synthetic catalog at a tiny scale: determinism, volumes, versions, withdrawals,
growth by a month, and that the stand-in serves it over OAI-PMH."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import requests
from click.testing import CliRunner
from lxml import etree

from reflong.cli import main
from reflong.demo.catalog2024 import MONTHLY, OTHER_CS_SHARE, TARGET, write_catalog
from reflong.ingest.catalog.reader import read_catalog
from reflong.servers.arxiv_server import ArxivServer

SCALE = 0.02  # ~1,800 papers up to 2024-10


def _records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "papers.jsonl").read_text(encoding="utf-8").splitlines()]


def test_same_arguments_same_bytes_and_the_cli(tmp_path: Path) -> None:
    write_catalog(tmp_path / "a", scale=SCALE, seed=7, until="2024-04")
    result = CliRunner().invoke(
        main,
        [
            "synth-catalog",
            "--out",
            str(tmp_path / "b"),
            "--scale",
            str(SCALE),
            "--seed",
            "7",
            "--until",
            "2024-04",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "synthetic 2024 catalog" in result.output
    for name in ("papers.jsonl", "generator.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    write_catalog(tmp_path / "c", scale=SCALE, seed=8, until="2024-04")
    assert (tmp_path / "c" / "papers.jsonl").read_bytes() != (tmp_path / "a" / "papers.jsonl").read_bytes()
    bad = CliRunner().invoke(main, ["synth-catalog", "--out", str(tmp_path / "d"), "--until", "2026-01"])
    assert bad.exit_code == 2 and "2025-08" in bad.output


def test_volumes_categories_versions_and_withdrawals(tmp_path: Path) -> None:
    summary = write_catalog(tmp_path, scale=SCALE, until="2024-10")
    recs = _records(tmp_path)
    assert len(recs) == summary.papers
    in_scope = [r for r in recs if set(r["categories"]) & set(TARGET)]
    months = Counter(r["first_published"][:7] for r in in_scope)
    for month, n in MONTHLY.items():
        if month <= "2024-10":
            assert abs(months[month] - n * SCALE) <= 2, (month, months[month])  # a messy record may lack cats
    assert "2024-11" not in months
    window = sum(months[m] for m in ("2024-04", "2024-05", "2024-06", "2024-07", "2024-08", "2024-09"))
    assert abs(window - 45000 * SCALE) <= 10
    # papers outside the three categories: other cs (set=cs returns them) and outside cs
    other = [r for r in recs if r["categories"] and not set(r["categories"]) & set(TARGET)]
    cs_other = [r for r in other if r["categories"][0].startswith("cs.")]
    assert abs(len(cs_other) - len(recs) * OTHER_CS_SHARE / 1.12) < len(recs) * 0.03
    assert len(other) > len(cs_other) > 0
    cross = [r for r in in_scope if r["primary_category"] not in TARGET]  # e.g. stat.ML + cs.LG
    assert len(cross) > 0.1 * len(in_scope)
    # versions: sorted by number and date, about 38% revised, gaps of days to months
    revised = 0
    for r in recs:
        numbers = [int(v["version"][1:]) for v in r["versions"]]
        assert numbers == list(range(1, len(numbers) + 1))
        dated = [v["published"] for v in r["versions"] if "published" in v]
        assert dated == sorted(dated) and r["datestamp"] >= dated[-1] and r["datestamp"] <= "2024-10-31"
        if r["first_published"] < "2024-04":  # old enough for most revisions to have come
            revised += len([v for v in r["versions"] if not v.get("withdrawn")]) > 1
    old = sum(r["first_published"] < "2024-04" for r in recs)
    assert 0.30 < revised / old < 0.46
    withdrawn = [r for r in recs if r["versions"][-1].get("withdrawn")]
    assert withdrawn and all(r["versions"][-1]["size_kb"] == 1 for r in withdrawn)
    assert any("withdrawn" not in r["comment"].lower() for r in withdrawn)
    assert all(r["file"] is None for r in recs)


def test_growing_by_a_month_adds_only_that_month(tmp_path: Path) -> None:
    write_catalog(tmp_path / "sep", scale=SCALE, until="2024-09")
    write_catalog(tmp_path / "oct", scale=SCALE, until="2024-10")
    before = {r["arxiv_id"]: r for r in _records(tmp_path / "sep")}
    after = {r["arxiv_id"]: r for r in _records(tmp_path / "oct")}
    new = set(after) - set(before)
    changed = {k for k in before if before[k] != after[k]}
    assert set(before) <= set(after)
    assert new and all(after[k]["first_published"].startswith("2024-10") for k in new)
    assert changed and all(after[k]["datestamp"].startswith("2024-10") for k in changed)
    # the papers.jsonl lines of untouched papers are byte-identical
    lines_before = set((tmp_path / "sep" / "papers.jsonl").read_text(encoding="utf-8").splitlines())
    lines_after = set((tmp_path / "oct" / "papers.jsonl").read_text(encoding="utf-8").splitlines())
    assert len(lines_before - lines_after) == len(changed)


def test_the_stand_in_serves_it(tmp_path: Path) -> None:
    write_catalog(tmp_path, scale=SCALE, until="2024-10")
    catalog = read_catalog(tmp_path)
    assert not [p for p in catalog.problems if p.reason != "missing-title"]
    late = {
        aid
        for aid, p in catalog.papers.items()
        if p.modified >= "2024-10-01" and any(c.startswith("cs.") for c in p.categories)
    }
    with ArxivServer(tmp_path, oai_page_size=500) as srv:
        ids, token = [], None
        params = {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "set": "cs", "from": "2024-10-01"}
        while True:
            root = etree.fromstring(requests.get(f"{srv.url}/oai2", params=params, timeout=30).content)
            ids += [
                e.text.split(":")[-1] for e in root.iter("{http://www.openarchives.org/OAI/2.0/}identifier")
            ]
            token = root.findtext(".//{http://www.openarchives.org/OAI/2.0/}resumptionToken")
            if not token:
                break
            params = {"verb": "ListRecords", "resumptionToken": token}
    assert set(ids) == late and len(ids) == len(late)
    # a harvest from October includes older papers revised or withdrawn in October (a superset)
    assert any(catalog.papers[i].first_published < "2024-10-01" for i in ids)
