"""Stage behaviour on small hand-made stores: store seeds, seed files, incremental resolution."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from reflong.citations.candidates.seeds import load_seed_file
from reflong.citations.stages.cite_stage import run_cite
from reflong.citations.stages.resolve_stage import run_resolve
from reflong.cli import main
from reflong.common.errors import ReflongError
from reflong.db.citations import Citation, Seed
from reflong.db.engine import open_store
from reflong.db.papers import Paper, PaperRole
from reflong.db.text import ParsedDoc

REFS = "\n".join(
    [
        "[1] H. Touvron, T. Lavril, G. Izacard, et al. LLaMA: Open and efficient foundation language models.",
        "arXiv preprint arXiv:2302.13971, 2023.",
        "[2] H. Touvron, L. Martin, et al. Llama 2: Open foundation and fine-tuned chat models. 2023.",
        "[3] X. Geng and H. Liu. Openllama: An open reproduction of llama, May 2023.",
        "[4] T. Dao. FlashAttention-2: Faster attention with better parallelism and work partitioning. 2023.",
    ]
)


def make_store(path, refs_text: str = REFS):
    engine = open_store(path)
    with Session(engine) as s:
        sha = hashlib.sha256(refs_text.encode()).hexdigest()
        s.add(
            Paper(
                arxiv_id="2405.00001", version=2, title="A citing paper", pdf_sha256=sha, status="downloaded"
            )
        )
        s.add(ParsedDoc(pdf_sha256=sha, parser_version="t", references_text=refs_text, has_references=True))
        for pid, title, first, date in [
            (
                "2302.13971",
                "LLaMA: Open and Efficient Foundation Language Models",
                "Hugo Touvron",
                "2023-02-27",
            ),
            (
                "2307.09288",
                "Llama 2: Open Foundation and Fine-Tuned Chat Models",
                "Hugo Touvron",
                "2023-07-18",
            ),
        ]:
            s.add(
                Paper(
                    arxiv_id=pid,
                    version=1,
                    title=title,
                    authors_json=json.dumps([first]),
                    first_published=date,
                )
            )
            s.add(PaperRole(window="2023-02:s6", arxiv_id=pid, role="seed", version=1))
        s.commit()
    return engine


def accepted(engine) -> dict[str, int]:
    with Session(engine) as s:
        return {
            c.seed_arxiv_id: c.ref_order for c in s.exec(select(Citation).where(Citation.band == "accept"))
        }


def test_store_seed_roles_resolve_and_relatives_stay_apart(tmp_path):
    engine = make_store(tmp_path / "s.db")
    assert run_cite(engine).cited == 1
    report = run_resolve(engine)
    assert report.seeds == 2
    assert accepted(engine) == {"2302.13971": 1, "2307.09288": 2}
    with Session(engine) as s:
        seed = s.exec(select(Seed).where(Seed.arxiv_id == "2307.09288")).one()
        assert (seed.first_author, seed.published, seed.source) == ("Touvron", "2023-07-18", "store")
        llama = s.exec(select(Citation).where(Citation.seed_arxiv_id == "2302.13971")).all()
        # OpenLLaMA mentions llama but is another work: never accepted for LLaMA
        assert all(c.band != "accept" for c in llama if c.ref_order == 3)
        assert {c.method for c in llama if c.band == "accept"} == {"arxiv_id"}


def test_new_seed_file_adds_only_its_edges_and_changed_title_reresolves(tmp_path):
    engine = make_store(tmp_path / "s.db")
    run_cite(engine)
    run_resolve(engine)
    seeds = tmp_path / "seeds.jsonl"
    fa2 = {
        "arxiv_id": "2307.08691v2",
        "title": "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning",
        "published": "2023-07-17",
        "first_author": "Dao",
    }
    fa1 = {
        "arxiv_id": "2205.14135",
        "title": "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
        "published": "2022-05-27",
        "first_author": "Dao",
    }
    seeds.write_text(json.dumps(fa2) + "\n" + json.dumps(fa1) + "\n")
    r = run_resolve(engine, seeds_file=str(seeds))
    assert r.seeds == 2 and r.lists_resolved == 1
    assert accepted(engine) == {"2302.13971": 1, "2307.09288": 2, "2307.08691": 4}  # version suffix dropped
    assert run_resolve(engine, seeds_file=str(seeds)).lists_resolved == 0
    assert run_resolve(engine).lists_resolved == 0  # store seeds are below the watermark too
    title = fa2["title"]
    fa2["title"] = "Something Else Entirely About Gardening"
    seeds.write_text(json.dumps(fa2) + "\n")
    r = run_resolve(engine, seeds_file=str(seeds))
    # The changed seed's edges are gone, and no reference prints its new title: nothing to read.
    assert r.lists_resolved == 0 and r.references_scored == 0
    assert "2307.08691" not in accepted(engine)
    fa2["title"] = title  # changed back: the one reference printing it is read again
    seeds.write_text(json.dumps(fa2) + "\n")
    r = run_resolve(engine, seeds_file=str(seeds))
    assert (r.lists_resolved, r.references_scored) == (1, 1)
    assert accepted(engine)["2307.08691"] == 4


def test_changed_thresholds_reresolve_everything(tmp_path):
    from reflong.citations.resolve import Thresholds

    engine = make_store(tmp_path / "s.db")
    run_cite(engine)
    run_resolve(engine)
    with Session(engine) as s:
        ids = {c.id for c in s.exec(select(Citation))}
    r = run_resolve(engine, thresholds=Thresholds(accept=95, review=70))
    assert r.lists_resolved == 1
    with Session(engine) as s:
        assert {c.id for c in s.exec(select(Citation))} == ids  # same rows, updated in place


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "lists no seeds"),
        ('{"title": "x"}\n', "line 1"),
        ('{"arxiv_id": "1", "title": "t"}\nnot json\n', "line 2"),
    ],
)
def test_bad_seed_files_name_the_problem(tmp_path, content, message):
    path = tmp_path / "seeds.jsonl"
    path.write_text(content)
    with pytest.raises(ReflongError, match=message):
        load_seed_file(path)


def test_cli_cite_resolve_and_errors(tmp_path):
    db = str(tmp_path / "s.db")
    make_store(tmp_path / "s.db")
    runner = CliRunner()
    out = runner.invoke(main, ["cite", "--db", db])
    assert out.exit_code == 0 and "4 references stored" in out.output
    out = runner.invoke(main, ["resolve", "--db", db])
    assert out.exit_code == 0 and "edges: accept=2" in out.output
    out = runner.invoke(main, ["resolve", "--db", db, "--seeds", str(tmp_path / "missing.jsonl")])
    assert out.exit_code == 1 and "no such file" in out.output
    out = runner.invoke(main, ["resolve", "--db", db, "--accept", "70", "--review", "80"])
    assert out.exit_code == 1 and "above --accept" in out.output
    out = runner.invoke(
        main, ["edges", "--db", db, "--key", "LLaMA: Open and Efficient", "--format", "jsonl"]
    )
    rows = [json.loads(line) for line in out.output.splitlines()]
    assert {r["seed"] for r in rows} == {"2302.13971"} and rows[0]["citing_version"] == 2
    out = runner.invoke(main, ["edges", "--db", db, "--key", "no such seed title at all"])
    assert out.exit_code == 1 and "no seed title matches" in out.output
    out = runner.invoke(main, ["refs", "--db", db, "--paper", "2405.00001v2"])
    assert out.exit_code == 0 and "arXiv:2302.13971" in out.output


def test_recite_with_a_new_parse_drops_edges_whose_evidence_changed(tmp_path):
    engine = make_store(tmp_path / "s.db")
    run_cite(engine)
    run_resolve(engine)
    assert accepted(engine) == {"2302.13971": 1, "2307.09288": 2}
    with Session(engine) as s:  # a new parser version reads the section differently
        sha = s.exec(select(Paper.pdf_sha256).where(Paper.arxiv_id == "2405.00001")).one()
        s.add(ParsedDoc(pdf_sha256=sha, parser_version="t2", references_text=REFS.split("\n", 2)[2]))
        s.commit()
    assert run_cite(engine).cited == 1
    with Session(engine) as s:  # order 1 is now Llama 2: the LLaMA edge at order 1 lost its evidence
        assert [(c.seed_arxiv_id, c.ref_order) for c in s.exec(select(Citation))] == []
    run_resolve(engine)
    assert accepted(engine) == {"2307.09288": 1}


def test_lists_whose_papers_are_seeds_share_one_index_and_never_cite_themselves(tmp_path, monkeypatch):
    """A refresh resolves lists of papers that are seeds of a later window. Keyed by 'every seed
    but the paper itself', resolve built one index per such list: 1,700 indexes of 7,000 seeds,
    12 GB, in a scale-1 refresh. Now one index per watermark serves them all, and a paper's own
    seed is excluded at match time: its own title in its list (an earlier version) is no edge."""
    import reflong.citations.stages.resolve_stage as stage

    engine = make_store(tmp_path / "s.db")
    own = "Sparse attention for long documents"
    with Session(engine) as s:
        for n in range(2, 7):
            pid = f"2405.0000{n}"
            text = REFS + f"\n[5] A. Author. {own} {n}. 2024."
            sha = hashlib.sha256(text.encode()).hexdigest()
            s.add(
                Paper(
                    arxiv_id=pid,
                    version=1,
                    title=f"{own} {n}",
                    pdf_sha256=sha,
                    status="downloaded",
                    authors_json=json.dumps(["A. Author"]),
                    first_published="2024-05-02",
                )
            )
            s.add(ParsedDoc(pdf_sha256=sha, parser_version="t", references_text=text, has_references=True))
            s.add(PaperRole(window="2024-05:s6", arxiv_id=pid, role="seed", version=1))
        s.commit()
    built = []

    class CountingIndex(stage.SeedIndex):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            built.append(len(self))

    monkeypatch.setattr(stage, "SeedIndex", CountingIndex)
    assert run_cite(engine).cited == 6
    report = run_resolve(engine)
    assert report.seeds == 7 and report.lists_resolved == 6
    assert built == [7]  # one index for the six lists (five of them seeds), not one per seed-list
    with Session(engine) as s:
        edges = s.exec(select(Citation).where(Citation.band == "accept")).all()
    by_paper: dict[str, set[str]] = {}
    for c in edges:
        by_paper.setdefault(c.citing_arxiv_id, set()).add(c.seed_arxiv_id)
    assert all(pid not in seeds for pid, seeds in by_paper.items())  # nobody cites itself
    # each list cites LLaMA and Llama 2; a seed-paper's entry [5] names its own title, so it is no
    # edge for itself but an accepted citation of the one seed it names ("... 3" in 2405.00003's
    # list is the title of 2405.00003 only, which is excluded there)
    assert by_paper["2405.00001"] == {"2302.13971", "2307.09288"}
    assert by_paper["2405.00002"] == {"2302.13971", "2307.09288"}
