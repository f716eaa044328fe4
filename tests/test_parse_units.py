"""Small pieces of the parser: headings, de-hyphenation, normalisation, chunking, PDF layouts."""

from __future__ import annotations

import pymupdf
import pytest

from reflong.common.tokenizer import get_tokenizer
from reflong.ingest.parse.chunking import chunk_text
from reflong.ingest.parse.pdf_text import Dehyphenator, normalize_text, parse_pdf
from reflong.ingest.parse.sections import is_references_heading


@pytest.mark.parametrize(
    "line",
    ["References", "REFERENCES", "R EFERENCES", "7 References", "7. References", "VII. REFERENCES",
     "References and Notes", "Bibliography", "BIBLIOGRAPHY", "Literature Cited", "References:"],
)  # fmt: skip
def test_references_heading_forms(line):
    assert is_references_heading(line)


@pytest.mark.parametrize(
    "line", ["References are listed below", "See the references in [3]", "Related Work", "7 Conclusion", ""]
)
def test_not_references_headings(line):
    assert not is_references_heading(line)


def test_dehyphenation_uses_the_documents_vocabulary():
    d = Dehyphenator("a pre-trained model; the representation; state-of-the-art; GPT-3 and SciBERT")
    assert d.join_lines(["a new language representa-", "tion model"]) == "a new language representation model"
    assert d.join_lines(["our pre-", "trained model"]) == "our pre-trained model"  # seen hyphenated
    assert d.join_lines(["a state-of-the-", "art result"]) == "a state-of-the-art result"
    assert d.join_lines(["English-", "to-German"]) == "English-to-German"
    assert d.join_lines(["Sentence-", "BERT"]) == "Sentence-BERT"
    assert d.join_lines(["SciB-", "ERT"]) == "SciBERT"
    assert d.join_lines(["GPT-", "3"]) == "GPT-3"
    assert d.join_lines(["zero- and", "few-shot"]) == "zero- and few-shot"
    assert d.join_lines(["see https://", "example.org/x"]) == "see https://example.org/x"


def test_normalize_text():
    assert normalize_text("\ufb01ne-tuning e\ufb03cient") == "fine-tuning efficient"
    assert normalize_text("zero\u200bwidth soft\u00adhyphen") == "zerowidth softhyphen"
    assert normalize_text("Lo¨ıc and Sch¨utze, Mareˇcek, H´enaff") == "Loïc and Schütze, Mareček, Hénaff"
    assert normalize_text("ＡＢＣ１２３") == "ABC123"


PROSE = " ".join(
    f"Sentence number {i} talks about retrieval, attention and long contexts in some detail."
    for i in range(400)
)


@pytest.mark.parametrize("spec", ["o200k_base", "cl100k_base"])
def test_chunks_within_bounds_with_exact_counts(spec):
    tok = get_tokenizer(spec)
    paragraphs = [PROSE[: 200 + 37 * i] for i in range(40)] + [PROSE]  # short ones, and one huge
    text = "\n\n".join(paragraphs)
    chunks = chunk_text(text, tok, max_tokens=300)
    assert len(chunks) > 10
    for c in chunks:
        assert c.n_tokens == tok.count(c.text) <= 300
    assert all(c.n_tokens >= 150 for c in chunks[:-1])
    assert " ".join(" ".join(c.text.split()) for c in chunks) == " ".join(text.split())
    assert chunk_text(text, tok, max_tokens=300) == chunks  # deterministic


def test_chunks_prefer_paragraph_boundaries():
    tok = get_tokenizer("o200k_base")
    paras = [f"Paragraph {i}. " + "Some words here. " * 20 for i in range(30)]  # ~100 tokens each
    chunks = chunk_text("\n\n".join(paras), tok, max_tokens=450)
    for c in chunks:
        assert c.text.startswith("Paragraph ")  # never cut mid-paragraph when whole ones fit
        assert c.text.count("\n\n") >= 1


def test_unbroken_text_is_still_cut_within_bounds():
    tok = get_tokenizer("o200k_base")
    blob = "x" * 5000 + " " + "token " * 800  # a 'word' longer than any chunk, then plain words
    chunks = chunk_text(blob, tok, max_tokens=200)
    assert all(c.n_tokens == tok.count(c.text) <= 200 for c in chunks)
    assert "".join(c.text.replace(" ", "") for c in chunks) == blob.replace(" ", "")


def test_empty_text_gives_no_chunks():
    assert chunk_text("", get_tokenizer("o200k_base")) == []


def _two_column_pdf(path, heading: str | None = "References", with_refs: bool = True) -> None:
    """A synthetic two-column paper: header, page numbers, a references section, an appendix."""
    doc = pymupdf.open()
    left_text = "Left column sentence {n} of page {p} says something useful about models."
    right_text = "Right column sentence {n} of page {p} continues the argument further on."
    for p in range(1, 4):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 40), "Running Header of the Synthetic Paper", fontsize=8)
        page.insert_text((300, 770), str(p), fontsize=9)
        y = 90
        for n in range(1, 30):
            page.insert_text((72, y), left_text.format(n=n, p=p)[:48], fontsize=8)
            if p < 3:  # the last page's text ends in the left column, followed by the references
                page.insert_text((320, y), right_text.format(n=n, p=p)[:48], fontsize=8)
            y += 11
        if p == 3 and with_refs:
            if heading:
                page.insert_text((72, y + 20), heading, fontsize=11)
            y += 40
            for n in range(1, 6):
                page.insert_text((72, y), f"[{n}] A. Author and B. Writer. Title number {n}.", fontsize=8)
                page.insert_text(
                    (90, y + 10), f"In Proceedings of Venue, pages 1-{n}, 20{10 + n}.", fontsize=8
                )
                y += 24
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 40), "Running Header of the Synthetic Paper", fontsize=8)
    page.insert_text((72, 100), "A Additional Proofs", fontsize=12)
    for n in range(8):
        page.insert_text((72, 130 + 12 * n), f"Appendix line {n} explains the proof in words.", fontsize=9)
    doc.save(path)


def test_layout_on_a_synthetic_two_column_pdf(tmp_path):
    path = tmp_path / "two-column.pdf"
    _two_column_pdf(path)
    parsed = parse_pdf(path)
    assert parsed.n_pages == 4 and parsed.has_references
    body = parsed.body
    assert "Running Header" not in body + parsed.references + parsed.appendix
    # Reading order: all of page 1's left column, then its right column, then page 2.
    assert body.index("Left column sentence 29 of page 1") < body.index("Right column sentence 1 of page 1")
    assert body.index("Right column sentence 29 of page 1") < body.index("Left column sentence 1 of page 2")
    assert "\n\n3\n\n" not in f"\n\n{body}\n\n"  # page numbers gone
    refs = parsed.references.splitlines()
    assert refs == [
        f"[{n}] A. Author and B. Writer. Title number {n}. In Proceedings of Venue, pages 1-{n}, 20{10 + n}."
        for n in range(1, 6)
    ]
    assert parsed.appendix.startswith("A Additional Proofs")
    assert "Appendix line 7" in parsed.appendix and "Appendix line" not in body


@pytest.mark.parametrize(
    "heading", ["REFERENCES", "7 References", "Bibliography", "References and Notes", None]
)
def test_references_found_under_other_headings_or_none(tmp_path, heading):
    path = tmp_path / "paper.pdf"
    _two_column_pdf(path, heading=heading)
    parsed = parse_pdf(path)
    assert parsed.has_references
    assert len(parsed.references.splitlines()) == 5 and parsed.references.startswith("[1] A. Author")
    assert "[1] A. Author" not in parsed.body
    assert (heading or "[1]") not in parsed.references.splitlines()[0][4:]


def test_paper_without_references_is_flagged_not_failed(tmp_path):
    path = tmp_path / "no-refs.pdf"
    _two_column_pdf(path, with_refs=False)
    parsed = parse_pdf(path)
    assert not parsed.has_references and parsed.references == ""
    assert "Left column sentence 29 of page 3" in parsed.body
