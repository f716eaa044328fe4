"""The synthetic arXiv generator: catalog format, roles and dates, determinism, PDFs vs truth."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer
from reflong.demo.generate import generate
from reflong.demo.render import BOTTOM, PAGE_W
from reflong.demo.truth import cited_seeds, citers, read_truth
from reflong.demo.world import SynthConfig, norm_title, plan_world

CFG = SynthConfig(papers=120, seed=0, since="2024-03")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def cat(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "a"
    generate(out, CFG, jobs=2)
    return out


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """The scale path (process pool) on 300 papers, another month and seed."""
    out = tmp_path_factory.mktemp("synth") / "big"
    generate(out, SynthConfig(papers=300, seed=7, since="2023-11", seed_months=2), jobs=2)
    return out


@pytest.fixture(scope="module", params=["cat", "big"])
def any_cat(request) -> Path:
    return request.getfixturevalue(request.param)


def _body_text(pdf: pymupdf.Document) -> str:
    """Text of the body area of every page (running headers and page numbers left out, as a parser
    would), in reading order."""
    return "".join(page.get_text(clip=pymupdf.Rect(0, 50, PAGE_W, BOTTOM + 6)) for page in pdf)


def _references_part(text: str) -> str:
    idx = text.rfind("\nReferences\n")
    assert idx > 0, "no References heading"
    return text[idx:]


@pytest.mark.slow
def test_catalog_files_and_fields(any_cat: Path) -> None:
    papers = _read(any_cat / "papers.jsonl")
    seeds = _read(any_cat / "seeds.jsonl")
    gen = json.loads((any_cat / "generator.json").read_text())
    assert len(papers) == gen["config"]["papers"] == gen["counts"]["papers"]
    assert [p["arxiv_id"] for p in papers] == sorted({p["arxiv_id"] for p in papers})
    n_pdfs = 0
    for p in papers:
        for field in (
            "arxiv_id",
            "version",
            "file",
            "title",
            "authors",
            "published",
            "primary_category",
            "first_published",
            "categories",
            "versions",
        ):
            assert p[field], (p["arxiv_id"], field)
        assert re.fullmatch(r"\d{4}\.\d{4,5}", p["arxiv_id"])
        assert p["arxiv_id"][:4] == p["first_published"][2:4] + p["first_published"][5:7]
        assert p["categories"][0] == p["primary_category"]
        vs = p["versions"]
        assert [v["version"] for v in vs] == [f"v{i}" for i in range(1, len(vs) + 1)]
        dates = [date.fromisoformat(v["published"]) for v in vs]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)
        assert vs[0]["published"] == p["first_published"]
        assert (vs[-1]["version"], vs[-1]["published"], vs[-1]["file"]) == (
            p["version"],
            p["published"],
            p["file"],
        )
        for v in vs:
            assert v["file"] == f"pdf/{p['arxiv_id']}{v['version']}.pdf"
            assert (any_cat / v["file"]).read_bytes()[:5] == b"%PDF-"
            n_pdfs += 1
    assert n_pdfs == len(list((any_cat / "pdf").glob("*.pdf"))) == gen["counts"]["pdfs"]
    by_id = {p["arxiv_id"]: p for p in papers}
    assert seeds and {s["arxiv_id"] for s in seeds} <= set(by_id)
    for s in seeds:
        assert s["file"] is None and s["published"] == by_id[s["arxiv_id"]]["first_published"]
        assert s["title"] == by_id[s["arxiv_id"]]["title"]
        assert by_id[s["arxiv_id"]]["authors"][0].endswith(s["first_author"])
    assert len({norm_title(p["title"]) for p in papers}) == len(papers)
    # one-line strings, single spaces: titles, names, abstracts, reference entries
    strings = [p["title"] for p in papers] + [a for p in papers for a in p["authors"]]
    strings += [p["abstract"] for p in papers] + [s["title"] for s in seeds]
    strings += [c["reference"] for t in _read(any_cat / "truth.jsonl") for c in t["cites"] + t["near_misses"]]
    assert all(s == " ".join(s.split()) for s in strings)
    assert any(p.get("doi") for p in papers) and any(len(p["versions"]) > 1 for p in papers)


@pytest.mark.slow
def test_roles_follow_dates_and_versions(any_cat: Path) -> None:
    gen = json.loads((any_cat / "generator.json").read_text())
    w = {k: date.fromisoformat(v) for k, v in gen["windows"].items()}
    truth = _read(any_cat / "truth.jsonl")
    papers = {p["arxiv_id"]: p for p in _read(any_cat / "papers.jsonl")}
    seeds = {s["arxiv_id"]: date.fromisoformat(s["published"]) for s in _read(any_cat / "seeds.jsonl")}
    assert len(truth) == gen["counts"]["pdfs"]
    window = {
        "distractor": ("distractor_start", "seed_start"),
        "seed": ("seed_start", "pool_start"),
        "citing": ("pool_start", "pool_end"),
    }
    roles = {}
    for t in truth:
        first = date.fromisoformat(t["first_published"])
        lo, hi = window[t["role"]]
        assert w[lo] <= first < w[hi], t["paper"]
        roles[t["paper"]] = t["role"]
        assert (t["role"] == "seed") == (t["paper"] in seeds)
        assert t["sha256"] == hashlib.sha256((any_cat / t["file"]).read_bytes()).hexdigest()
        published = date.fromisoformat(t["published"])
        for c in t["cites"]:  # nobody cites the future
            assert seeds[c["seed"]] < published
        if t["role"] == "distractor" and published < w["seed_start"]:
            assert t["cites"] == [], "a date-safe distractor version cites a seed"
        if t["role"] == "citing":
            assert t["cites"], "every citing paper cites at least one seed"
    assert set(roles.values()) == {"seed", "citing", "distractor"}
    # Version pinning matters: distractors whose latest version (after the window) cites a seed.
    late = [t for t in truth if t["role"] == "distractor" and t["cites"]]
    assert late and all(date.fromisoformat(t["published"]) >= w["pool_start"] for t in late)
    for t in late:
        assert papers[t["paper"]]["version"] == t["version"] != "v1"
    # Enough keys for Ref-Long settings: seeds with 2-5 citing papers, some with 4-5.
    citers: dict[str, set[str]] = {}
    for t in truth:
        if t["role"] == "citing":
            for c in t["cites"]:
                citers.setdefault(c["seed"], set()).add(t["paper"])
    sizes = [len(v) for v in citers.values()]
    assert sum(2 <= n <= 5 for n in sizes) >= 5 and sum(4 <= n <= 5 for n in sizes) >= 2


def test_near_miss_families(cat: Path) -> None:
    gen = json.loads((cat / "generator.json").read_text())
    fams = {f["kind"]: f for f in reversed(gen["families"])}
    assert set(fams) == {"sequel", "hyphen", "prefix", "predecessor"}
    a, b = fams["sequel"]["titles"]
    name, _, sub = a.partition(": ")
    assert b == f"{name} 2: {sub}"
    assert fams["hyphen"]["titles"][1].startswith(fams["hyphen"]["titles"][0].split(":")[0] + "-2: ")
    p1, p2 = fams["prefix"]["titles"]
    assert p1.split(" in ")[0] == p2.split(" in ")[0] and p1 != p2
    seed, pred = fams["predecessor"]["members"]
    assert pred.startswith("ext-") and not seed.startswith("ext-")
    truth = _read(cat / "truth.jsonl")
    near = [n for t in truth for n in t["near_misses"]]
    assert near and {n["why_not"] for n in near} >= {
        "the older work with the same name is the predecessor, not the seed"
    }
    # a near miss never names a seed the same version cites
    for t in truth:
        assert not {n["seed"] for n in t["near_misses"]} & {c["seed"] for c in t["cites"]}
    # distractors that cite the predecessor of a seed: false-positive bait, not citations
    assert any(t["role"] == "distractor" and t["near_misses"] and not t["cites"] for t in truth)


@pytest.mark.slow
def test_same_seed_same_bytes_other_seed_differs(cat: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate(again, CFG, jobs=1)  # serial: bytes must not depend on the worker count
    assert _digest(again) == _digest(cat)
    other = tmp_path / "other"
    generate(other, SynthConfig(papers=CFG.papers, seed=1, since=CFG.since), jobs=1)
    assert (other / "papers.jsonl").read_bytes() != (cat / "papers.jsonl").read_bytes()
    assert not set(_digest(other).values()) & {v for k, v in _digest(cat).items() if k.endswith(".pdf")}


@pytest.mark.slow
def test_pdfs_hold_the_truth(any_cat: Path) -> None:
    """Every cited seed's title is in the PDF's references part (modulo case and hyphenation), with
    its arXiv id or DOI when the entry has one; no other seed's title is."""
    truth = _read(any_cat / "truth.jsonl")
    seeds = {s["arxiv_id"]: s["title"] for s in _read(any_cat / "seeds.jsonl")}
    styles, hyphenated, forms = set(), 0, set()
    for t in truth:
        with pymupdf.open(any_cat / t["file"]) as pdf:
            assert pdf.metadata["creationDate"] == "D:" + t["published"].replace("-", "") + "000000Z"
            stamp = pdf[0].get_text()
            assert f"arXiv:{t['paper']}{t['version']}" in stamp
            text = _body_text(pdf)
        refs = _references_part(text)
        flat = norm_title(refs)
        cited = {c["seed"] for c in t["cites"]}
        for c in t["cites"]:
            assert norm_title(seeds[c["seed"]]) in flat, (t["paper"], c["seed"])
            forms.add(c["form"])
            if c["form"] == "arxiv":
                assert c["seed"] in refs
        for sid, title in seeds.items():
            if sid not in cited and sid != t["paper"]:
                assert norm_title(title) not in flat, (t["paper"], t["version"], sid)
        n_entries = len(re.findall(r"^\[\d+\]", refs, flags=re.M))
        assert n_entries == (t["n_references"] if t["style"] == "numbered" else 0)
        styles.add(t["style"])
        hyphenated += len(re.findall(r"[a-z]-\n[a-z]", refs))
    assert styles == {"numbered", "author-year"}
    assert forms == {"arxiv", "doi", "title"}
    assert hyphenated > len(truth) // 4  # entries broken across lines with hyphens


@pytest.mark.slow
def test_pages_are_two_column_papers_of_ref_long_size(cat: Path) -> None:
    tok = get_tokenizer("o200k_base")
    counts = []
    for t in _read(cat / "truth.jsonl"):
        with pymupdf.open(cat / t["file"]) as pdf:
            assert pdf.page_count >= 2
            blocks = pdf[0].get_text("blocks")
            assert any(b[0] < 100 for b in blocks) and any(b[0] > PAGE_W / 2 for b in blocks)
            text = "".join(page.get_text() for page in pdf)
        for heading in ("Abstract", "1 Introduction", "2 Related Work", "5 Conclusion", "References"):
            assert f"\n{heading}\n" in text
        counts.append(tok.count(text))
    assert min(counts) >= 2000 and max(counts) < 5000  # Ref-Long papers are < 5,000 tokens
    assert 3200 <= sum(counts) / len(counts) <= 4000  # M=8 documents make ~28-30K tokens


def test_cli_writes_catalog_and_refuses_foreign_folder(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cat"
    res = runner.invoke(
        main, ["synth-arxiv", "--out", str(out), "--papers", "40", "--seed", "3", "--workers", "1"]
    )
    assert res.exit_code == 0, res.output
    assert "40 papers" in res.output and str(out) in res.output
    assert len(_read(out / "papers.jsonl")) == 40
    # rerun smaller into the same folder: no stale PDFs left behind
    res = runner.invoke(main, ["synth-arxiv", "--out", str(out), "--papers", "20", "--workers", "1"])
    assert res.exit_code == 0, res.output
    expected = {v["file"] for p in _read(out / "papers.jsonl") for v in p["versions"]}
    assert {f"pdf/{p.name}" for p in (out / "pdf").iterdir()} == expected
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    res = runner.invoke(main, ["synth-arxiv", "--out", str(foreign)])
    assert res.exit_code == 1 and "not empty" in res.output
    assert (foreign / "notes.txt").read_text() == "keep me"
    res = runner.invoke(main, ["synth-arxiv", "--out", str(tmp_path / "x"), "--since", "2024-13"])
    assert res.exit_code == 2 and "YYYY-MM" in res.output


def test_ids_follow_arxiv_scheme_across_2015() -> None:
    """YYMM.NNNN before 2015, YYMM.NNNNN since; every id (catalog or cited older work) is unique."""
    world = plan_world(SynthConfig(papers=60, seed=2, since="2015-02"))
    ids = [w.arxiv_id for w in world.works.values() if w.arxiv_id]
    assert len(ids) == len(set(ids))
    for work in world.works.values():
        if work.arxiv_id:
            digits = 4 if work.first_date.year < 2015 else 5
            assert re.fullmatch(rf"{work.first_date:%y%m}\.\d{{{digits}}}", work.arxiv_id), work.arxiv_id
    assert {len(i) for i in world.papers} == {9, 10}  # the window spans the switch


def test_truth_readers(cat: Path) -> None:
    truth = read_truth(cat)
    assert len(truth) == json.loads((cat / "generator.json").read_text())["counts"]["pdfs"]
    cited = cited_seeds(cat)
    pos = citers(cat)
    seeds = {s["arxiv_id"] for s in _read(cat / "seeds.jsonl")}
    assert set(pos) <= seeds and sum(len(v) for v in pos.values()) >= len(pos) * 2
    for seed, papers in pos.items():
        for p in papers:
            latest = max((v for (q, v) in truth if q == p), key=lambda v: int(v[1:]))
            assert seed in cited[(p, latest)] and truth[(p, latest)]["role"] == "citing"
    # distractors' date-safe versions cite nothing; their late revisions are not positives
    assert not any(cited[k] for k, r in truth.items() if r["role"] == "distractor" and k[1] == "v1")
    assert citers(cat, role="distractor")  # late revisions do cite seeds


def test_interrupted_run_is_finished_by_a_rerun(cat: Path, tmp_path: Path) -> None:
    """A killed run leaves a provisional generator.json, some PDFs and temp files; rerunning the
    same command completes the catalog with the same bytes as an uninterrupted run."""
    out = tmp_path / "cat"
    out.mkdir()
    (out / "generator.json").write_text(json.dumps({"complete": False}))
    (out / "pdf").mkdir()
    some = sorted((cat / "pdf").iterdir())[:5]
    for pdf in some:
        (out / "pdf" / pdf.name).write_bytes(pdf.read_bytes())
    (out / "pdf" / f".{some[0].name}.tmp").write_bytes(b"%PDF-1.7 trunc")
    (out / "pdf" / "2001.99999v1.pdf").write_bytes(b"%PDF-1.7 stale")
    generate(out, CFG, jobs=1)
    assert _digest(out) == _digest(cat)
    assert json.loads((out / "generator.json").read_text())["complete"] is True


@pytest.mark.slow
def test_parsed_documents_keep_their_own_title(cat: Path) -> None:
    """Issue 12, item 11: the generator repeats the title as a running header on later pages;
    the parser must keep page 1's title block (parser 1 lost it in about half the documents)."""
    from reflong.ingest.parse.pdf_text import parse_pdf

    titles = {r["arxiv_id"]: r["title"] for r in _read(cat / "papers.jsonl")}
    truth = _read(cat / "truth.jsonl")
    kept = [
        t
        for t in truth
        if norm_title(titles[t["paper"]]) in norm_title(parse_pdf(cat / t["file"]).body[:2000])
    ]
    assert len(kept) == len(truth) > 100


def test_real_length_model_matches_the_corpus(tmp_path):
    """``lengths="real"``: planned lengths follow the corpus figures (bench/doc_lengths.py), and a
    rendered paper parses back to about its planned body and bibliography."""
    import statistics

    from reflong.citations.fields.split import split_references
    from reflong.common.tokenizer import get_tokenizer
    from reflong.demo.document import compose
    from reflong.demo.generate import entries_for
    from reflong.demo.render import save_pdf
    from reflong.demo.world import REAL_BODY_SCALE, real_lengths
    from reflong.ingest.parse.pdf_text import parse_pdf

    world = plan_world(SynthConfig(papers=400, seed=3, lengths="real"))
    papers = list(world.papers.values())
    bodies = sorted(real_lengths(3, p.arxiv_id)[0] for p in papers)
    entries = sorted(len(p.versions[0].refs) for p in papers)
    assert 8200 <= statistics.median(bodies) <= 10100  # corpus: 9,141
    assert 7000 <= bodies[len(bodies) // 4] <= 8600 and 11200 <= bodies[3 * len(bodies) // 4] <= 13600
    assert 44 <= statistics.median(entries) <= 54 and max(entries) > 100  # corpus: 49, up to 577
    default = plan_world(SynthConfig(papers=400, seed=3))
    assert max(len(p.versions[0].refs) for p in default.papers.values()) <= 24  # default unchanged
    tok = get_tokenizer("o200k_base")
    for paper in papers[:3]:
        version = paper.versions[0]
        entries_ = entries_for(world, paper, version)
        doc = compose(paper, version, entries_, world.works, world.config.seed)
        path = tmp_path / f"{paper.arxiv_id}.pdf"
        save_pdf(doc, paper.style, path)
        parsed = parse_pdf(path)
        planned = real_lengths(3, paper.arxiv_id)[0]
        assert 0.75 * planned <= tok.count(parsed.body) <= 1.25 * planned, REAL_BODY_SCALE
        assert abs(len(split_references(parsed.references)[0]) - len(entries_)) <= 2
        assert 45 <= tok.count(parsed.references) / len(entries_) <= 80  # corpus: ~60 tokens an entry
