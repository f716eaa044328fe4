"""The fit document policy and keys with many citers, on small hand-made papers in a real store.

Papers here are long on purpose (bodies of ~6K tokens, bibliographies of 60 numbered entries), so
that every one of them must be cut: the checks are on the final texts the model would read, with
the real splitter and resolver doing the re-verification.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from reflong.assemble.paper.build import PaperSettings
from reflong.assemble.paper.documents import fit_sampled
from reflong.assemble.paper.model import PaperDoc
from reflong.assemble.paper.stage import run_paper_build
from reflong.citations.fields.split import split_reference_entries, split_references
from reflong.common.errors import ReflongError
from reflong.common.tokenizer import get_tokenizer
from reflong.db import Citation, Paper, PaperRole, ParsedDoc, Seed, open_store, session_for
from reflong.ingest.parse.pdf_text import PARSER_VERSION

WINDOW = "2024-03:s1:p6:d2"
KEY = ("2403.01000", "Quokka: Sparse Retrieval Heads for Streaming Transformers")
NEAR = ("2403.02000", "Quokka 2: Sparse Retrieval Heads for Streaming Transformers")
N_CITERS, N_DISTRACTORS = 12, 16
WORDS = [
    "lattice",
    "ember",
    "quill",
    "harbor",
    "saffron",
    "tundra",
    "velvet",
    "mosaic",
    "orchard",
    "prism",
    "cobalt",
    "meadow",
    "lantern",
    "granite",
    "willow",
    "falcon",
    "ripple",
    "marble",
    "cedar",
    "beacon",
    "thistle",
    "canyon",
]


def _body(rng: random.Random, title: str, n_sentences: int = 300) -> str:
    sentences = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 20))).capitalize() + "."
        for _ in range(n_sentences)
    ]
    paras = [" ".join(sentences[i : i + 6]) for i in range(0, len(sentences), 6)]
    return f"{title}\n\nA. Writer, B. Writer\n\nAbstract\n\n" + "\n\n".join(paras)


def _bibliography(rng: random.Random, cited: list[str], n: int = 60) -> str:
    """n numbered entries with invented titles; ``cited`` titles placed at random positions."""
    entries = [
        f"C. Person and D. Person. {' '.join(rng.choice(WORDS) for _ in range(6)).capitalize()} "
        f"{i}. In Proceedings of a Venue, pages {i}-{i + 9}, 2021."
        for i in range(n)
    ]
    for title in cited:
        entries[rng.randrange(n)] = f"E. Author and F. Author. {title}. arXiv preprint, 2024."
    return "\n".join(f"[{i}] {e}" for i, e in enumerate(entries, start=1))


def _store(db_path):
    rng = random.Random(5)
    engine = open_store(db_path)
    with session_for(engine) as s:
        for seed_id, title in (KEY, NEAR):
            s.add(Seed(arxiv_id=seed_id, title=title, published="2024-03-05"))
            s.add(PaperRole(window=WINDOW, arxiv_id=seed_id, role="seed", version=1))
        papers = [(f"2405.{i:05d}", "pool", "2024-05-02", [KEY[1]]) for i in range(N_CITERS)]
        papers.append(("2405.09999", "pool", "2024-05-03", [NEAR[1]]))  # a confuser: cites the sequel
        papers += [(f"2401.{i:05d}", "distractor", "2024-01-10", []) for i in range(N_DISTRACTORS)]
        for arxiv_id, role, date, cited in papers:
            sha = f"sha-{arxiv_id}"
            refs = _bibliography(rng, cited)
            s.add(
                Paper(
                    arxiv_id=arxiv_id,
                    version=1,
                    title=f"Paper {arxiv_id}",
                    first_published=date,
                    version_date=date,
                    pdf_sha256=sha,
                    status="downloaded",
                )
            )
            s.add(PaperRole(window=WINDOW, arxiv_id=arxiv_id, role=role, version=1))
            s.add(
                ParsedDoc(
                    pdf_sha256=sha,
                    parser_version=PARSER_VERSION,
                    body_text=_body(rng, f"Paper {arxiv_id}"),
                    references_text=refs,
                    has_references=True,
                )
            )
            for seed_id, title in (KEY, NEAR):
                if title in cited:
                    line = next(ln for ln in refs.splitlines() if title in ln)
                    s.add(
                        Citation(
                            citing_arxiv_id=arxiv_id,
                            citing_version=1,
                            seed_arxiv_id=seed_id,
                            ref_order=int(line[1 : line.index("]")]),
                            reference=line,
                            method="title",
                            score=100.0,
                            band="accept",
                        )
                    )
        s.commit()
    return engine


def _built(tmp_path, **settings):
    engine = _store(tmp_path / "store.db")
    base = dict(lengths=(("30K", 8), ("45K", 12)), n_tasks=30, seed=2, seed_ids=None)
    base.update(settings)
    seed_ids = base.pop("seed_ids")
    result = run_paper_build(engine, WINDOW, tmp_path / "out", PaperSettings(**base), seed_ids)
    rows = {}
    for path in (tmp_path / "out").glob("*_answers.json"):
        rows[path.name] = json.loads(path.read_text())
    return result, rows


@pytest.mark.slow
def test_many_citers_sampled_cumulative_and_never_negative(tmp_path):
    """A key with 12 citers yields tasks of 2-5 (easy) / 4-5 (hard) of them, fixed across lengths;
    the other citers never appear as negatives; every label holds on the final text."""
    result, _ = _built(tmp_path)
    citers = {f"2405.{i:05d}v1" for i in range(N_CITERS)}
    report = result.report
    assert report.keys_used == {"easy": [KEY[0]], "hard": [KEY[0]]}
    assert report.dropped_tasks == [] and report.dropped_positives == {}
    assert result.n_tasks == 2 * 30 * 2
    from sqlmodel import select

    from reflong.db import BuildTask

    engine = open_store(tmp_path / "store.db")
    with session_for(engine) as s:
        tasks = s.exec(select(BuildTask).where(BuildTask.build_id == result.build_id)).all()
    by_task: dict[tuple[str, int], dict[str, tuple[list[str], list[int]]]] = {}
    for t in tasks:
        by_task.setdefault((t.difficulty, t.task_index), {})[t.length] = (
            json.loads(t.documents_json),
            json.loads(t.answer_json),
        )
    samples = {"easy": set(), "hard": set()}
    for (difficulty, _i), lengths in by_task.items():
        positives = None
        for docs, answer in lengths.values():
            chosen = frozenset(docs[i] for i in answer)
            negatives = {d for i, d in enumerate(docs) if i not in answer}
            assert chosen <= citers and not (negatives & citers)  # no citer is ever a negative
            lo, hi = (2, 5) if difficulty == "easy" else (4, 5)
            assert lo <= len(chosen) <= hi
            assert positives is None or chosen == positives  # cumulative: same positives
            positives = chosen
        assert set(lengths["30K"][0]) <= set(lengths["45K"][0])
        samples[difficulty].add(positives)
    # Several tasks of the one key, with different positive samples.
    assert len(samples["easy"]) >= 10 and len(samples["hard"]) >= 5
    assert {len(p) for p in samples["easy"]} == {2, 3, 4, 5}


def test_many_citers_skip_keeps_the_old_rule(tmp_path):
    engine = _store(tmp_path / "store.db")
    settings = PaperSettings(lengths=(("30K", 8),), n_tasks=3, many_citers="skip")
    with pytest.raises(ReflongError, match="no task could be built"):
        run_paper_build(engine, WINDOW, tmp_path / "out", settings)


@pytest.mark.slow
def test_fit_documents_from_long_papers(tmp_path):
    """Every paper is cut to the budget by one rule: body start, sampled numbered references that
    keep the key's entry (positives) and the sequel's entry (the confuser) with their numbers."""
    result, _ = _built(tmp_path, difficulties=("hard",), n_tasks=10)
    docs = result.report.documents
    assert docs["policy"] == "fit" and docs["usable_share"] == 1.0
    assert docs["cut"] == docs["papers"] == N_CITERS + 1 + N_DISTRACTORS
    assert docs["reference_lists_sampled"] == docs["papers"] and 0.1 < docs["entries_kept_share"] < 0.5
    budget = docs["budget_tokens"]
    assert 3600 < budget < 3750
    import pyarrow.parquet as pq

    tok = get_tokenizer("o200k_base")
    rows = pq.read_table(tmp_path / "out" / "data" / "hard_30K.parquet").to_pylist()
    seen_confuser = False
    for row in rows:
        assert row["prompt_tokens"] <= 30_000
        for doc in row["documents"]:
            text = doc["text"]
            assert tok.count(text) == doc["n_tokens"] and budget - 80 <= doc["n_tokens"] <= budget
            assert text.startswith(f"Paper {doc['arxiv_id']}\n\nA. Writer, B. Writer\n\nAbstract")
            numbers = [int(n) for n in re.findall(r"^\[(\d+)\] ", text, re.M)]
            assert numbers == sorted(set(numbers)) and 5 <= len(numbers) < 60  # a sample, own numbers
            cites_key = f"{KEY[1]}." in text
            assert cites_key == (doc["index"] in row["answer"])
            if doc["arxiv_id"] == "2405.09999":
                seen_confuser = True
                assert f"{NEAR[1]}." in text  # the near miss stays: a hard negative stays hard
    assert seen_confuser
    # Same settings and seed: byte-identical texts (the sample is seeded by --seed and paper id).
    again, _ = _built(tmp_path / "again", difficulties=("hard",), n_tasks=10)
    assert again.report.documents == docs


def test_fit_sampled_keeps_guarded_entries_in_order(tmp_path):
    tok = get_tokenizer("o200k_base")
    rng = random.Random(1)
    refs = _bibliography(rng, [KEY[1]], n=80)
    doc = PaperDoc("2405.00001", 1, None, None, None, _body(rng, "T"), refs)
    key_line = next(ln for ln in refs.splitlines() if KEY[1] in ln)

    def guard(entry: str) -> frozenset[str]:
        return frozenset({KEY[0]}) if KEY[1] in entry else frozenset()

    a = fit_sampled(doc, tok, 2000, 0, guard)
    assert a.doc is not None and a.doc.n_tokens <= 2000 and a.protected == 1
    assert key_line in a.doc.references.splitlines()
    entries, style = split_reference_entries(a.doc.references)
    assert style == "bracket" and len(entries) == a.entries_kept < a.entries == 80
    assert a.doc.references.splitlines() == [e.line for e in entries]
    assert fit_sampled(doc, tok, 2000, 0, guard).doc == a.doc  # deterministic
    other = fit_sampled(doc, tok, 2000, 1, guard).doc
    assert other.references != a.doc.references and key_line in other.references  # another sample
    # A person confirmed a citation no entry explains: the list is kept whole (or the paper left out).
    whole = fit_sampled(doc, tok, 6000, 0, guard, confirmed_seeds=frozenset({"2403.09999"}))
    assert whole.doc is not None and whole.entries_kept == 80
    short = fit_sampled(doc, tok, 2000, 0, guard, confirmed_seeds=frozenset({"2403.09999"}))
    assert short.doc is None and "audit-confirmed" in short.reason


def test_split_reads_a_sampled_numbered_list_one_entry_per_line():
    text = "[3] A. B. First title. 2020.\n[17] C. D. Second title. 2021.\n[40] E. F. Third. 2022."
    assert split_references(text) == (
        ["A. B. First title. 2020.", "C. D. Second title. 2021.", "E. F. Third. 2022."],
        "bracket",
    )
    entries, _ = split_reference_entries(text)
    assert [e.marker for e in entries] == ["[3]", "[17]", "[40]"]
    # Not increasing: not a one-per-line list; the sequence rule decides as before.
    assert split_references("[3] A. 2020.\n[2] B. 2021.\n[40] C. 2022.")[1] != "bracket"
