"""Splitter styles on small texts shaped like the parse stage's output."""

from __future__ import annotations

from reflong.citations.fields.split import MAX_ENTRY_CHARS, split_references


def test_bracket_numbers_must_form_a_sequence():
    text = "\n".join(
        [
            "[1] A. Author. First title. In Venue, 2019.",
            "[2] B. Author. Second title that wraps",
            "[12] onto a line starting with a bracketed number. 2020.",
            "[3] C. Author. Third title. 2021.",
        ]
    )
    entries, style = split_references(text)
    assert style == "bracket" and len(entries) == 3
    assert entries[1].endswith("bracketed number. 2020.")


def test_dot_numbered_and_label_keys():
    dot = "\n".join(f"{i}. A. Author{i}. Title {i}. Journal, 20{10 + i}." for i in range(1, 8))
    assert split_references(dot) == (
        [f"A. Author{i}. Title {i}. Journal, 20{10 + i}." for i in range(1, 8)],
        "dot",
    )
    label = "\n".join(
        [
            "[Askell et al., 2021] Askell, A., Bai, Y., and Kaplan, J. (2021). A general language assistant.",
            "[Bai et al., 2022] Bai, Y., Jones, A., and Kaplan, J. (2022). Training a helpful and harmless",
            "assistant with reinforcement learning from human feedback.",
            "[Wei et al., 2022] Wei, J. and Zhou, D. (2022). Chain of thought prompting.",
        ]
    )
    entries, style = split_references(label)
    assert style == "label" and len(entries) == 3 and entries[1].startswith("Bai, Y.")


def test_author_year_with_wrapped_lines_and_hyphens():
    text = "\n".join(
        [
            "Alan Akbik, Duncan Blythe, and Roland Vollgraf.",
            "2018. Contextual string embeddings for sequence",
            "labeling. In COLING, pages 1638–1649.",
            "Rami Al-Rfou, Dokook Choe, Noah Constant, Mandy",
            "Guo, and Llion Jones. 2018. Character-level lan-",
            "guage modeling with deeper self-attention.",
            "Tri Dao. 2023. FlashAttention-2: Faster attention with better Memory-",
            "Efficient parallelism. arXiv preprint arXiv:2307.08691.",
        ]
    )
    entries, style = split_references(text)
    assert style == "author-year" and len(entries) == 3
    assert "Character-level language modeling" in entries[1]
    assert "Memory- Efficient" in entries[2]  # a capitalised continuation keeps its hyphen


def test_one_entry_per_line_astronomy_style():
    text = "\n".join(
        [
            "Brown, P., Assink, J. D., Astiz, L., et al. 2013, Nature, 503, 238",
            "Greenstreet, S., Ngo, H., & Gladman, B. 2012, Icarus, 217, 355",
            "Harris, A. W. & D'Abramo, G. 2015, Icarus, 257, 302",
            "Mainzer et al. 2011, ApJ, 741, 90",
            "Monet, D. G., Levine, S. E., Canzian, B., et al. 2003, AJ, 125, 984",
            "Schmidt, M. 1968, AJ, 151, 393",
        ]
    )
    entries, style = split_references(text)
    assert style == "line" and len(entries) == 6


def test_empty_garbled_and_giant_input():
    assert split_references("") == ([], "empty")
    assert split_references("   \n \n") == ([], "empty")
    entries, _ = split_references("x" * 50_000)
    assert len(entries) == 1 and len(entries[0]) == MAX_ENTRY_CHARS
