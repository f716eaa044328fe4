"""Issue 21, item 5: ``--lengths 1M`` is read as people write it, and names the setting ``1000K``."""

from __future__ import annotations

import hashlib

import click
import pytest
from click.testing import CliRunner

from reflong.assemble.synthetic.build import parse_lengths as synthetic_lengths
from reflong.cli import main
from reflong.cli.paper_cmd import parse_lengths as paper_lengths
from reflong.cli.paper_cmd import uneven_lengths
from reflong.common.errors import ReflongError
from reflong.common.length_labels import canonical_label, label_tokens
from reflong.db.engine import open_store


@pytest.mark.parametrize(
    "text,tokens",
    [("8K", 8000), ("128k", 128_000), ("1M", 1_000_000), ("1m", 1_000_000), ("1.5M", 1_500_000),
     ("0.5K", 500), ("1000K", 1_000_000), ("8000", 8000), (" 2M ", 2_000_000)],
)  # fmt: skip
def test_labels_people_write_are_read_as_token_counts(text, tokens):
    assert label_tokens(text) == tokens


@pytest.mark.parametrize("text", ["1G", "M", "1.5", "1.0005K", "1,5M", "-1M", "1 M", ""])
def test_what_is_no_label_is_refused(text):
    assert label_tokens(text) is None


def test_the_label_written_to_outputs_is_in_k():
    assert [canonical_label(t) for t in (1_000_000, 1_500_000, 8000, 500)] == ["1000K", "1500K", "8K", "500"]


def test_paper_1m_is_the_1000k_setting():
    long = paper_lengths("128K,256K,512K,1M")
    assert long == paper_lengths("128K,256K,512K,1000K")
    assert long == (("128K", 34), ("256K", 68), ("512K", 136), ("1000K", 266))
    assert paper_lengths("1M:300") == (("1000K", 300),)
    assert paper_lengths("30k,45K") == (("30K", 8), ("45K", 12))  # Ref-Long's M by label


@pytest.mark.parametrize(
    "lengths",
    ["128K,256K,512K,1M", "30K,45K,60K,75K,128K,256K", "64K,128K,200K,1M", "30K,45K,60K,75K,1M"],
)
def test_default_m_keeps_prompts_of_every_length_within_half_a_percent(lengths):
    """The long settings on the 2024-sized world had 128K/256K/1M prompts 1.1%/1.1%/0.55% under
    their labels: M by rounding gave 512K 3,737 tokens a paper, and the one per-paper budget
    follows the tightest length. M by floor gives every length at least 3,750 tokens a paper."""
    parsed = paper_lengths(lengths)
    assert all(label_tokens(label) / n >= 3750 for label, n in parsed)
    assert uneven_lengths(parsed) == []


def test_uneven_m_given_by_hand_is_named_with_its_shortfall(tmp_path):
    assert [
        (label, round(short, 3)) for label, short in uneven_lengths(paper_lengths("128K:34,512K:137"))
    ] == [("128K", 0.007)]
    open_store(tmp_path / "s.db").dispose()  # --reuse-db refuses a store that does not exist
    res = CliRunner().invoke(
        main,
        ["paper", "--since", "2024-03", "--reuse-db", "--lengths", "128K:34,512K:137",
         "--db", str(tmp_path / "s.db"), "--out", str(tmp_path / "o")],
    )  # fmt: skip
    assert "note: 128K prompts will be about 0.7% under 128K" in res.output


@pytest.mark.parametrize("text", ["1G", "0.5K", "1500", "1M:1"])
def test_paper_refuses_what_is_not_whole_thousands(text):
    with pytest.raises(click.BadParameter):
        paper_lengths(text)


def test_a_and_f_read_1m_as_1000k():
    assert synthetic_lengths("8K,1M") == synthetic_lengths("8K,1000K")
    assert [(x.label, x.n_documents) for x in synthetic_lengths("1M")] == [("1000K", 1000)]
    assert [(x.label, x.n_documents) for x in synthetic_lengths("0.5M,1.5M", 2000)] == [
        ("500K", 250),
        ("1500K", 750),
    ]
    with pytest.raises(ReflongError, match="1M"):  # the error names the accepted forms
        synthetic_lengths("1G")


@pytest.mark.parametrize("command", ["paper", "a", "f"])
def test_help_names_the_accepted_labels(command):
    res = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert res.exit_code == 0
    assert "1M (= 1000K, the same setting)" in " ".join(res.output.split())


def _hashes(folder):
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_build_with_m_labels_equals_the_k_build(data_dir, tmp_path):
    """The same setting written two ways gives byte-identical outputs (the essays hold too few
    tokens for 1M itself, so 0.016M stands for the M form)."""
    base = ["a", "--haystack", str(data_dir / "pg_essays"), "--modes", "multi", "--levels", "hard",
            "--tasks", "3", "--no-dataset", "--no-baselines"]  # fmt: skip
    outs = {}
    for name, lengths in (("k", "8K,16K"), ("m", "8k,0.016M")):
        res = CliRunner().invoke(main, [*base, "--lengths", lengths, "--out", str(tmp_path / name)])
        assert res.exit_code == 0, res.output
        outs[name] = _hashes(tmp_path / name)
    assert "before/multi_stars_hard_16K.json" in " ".join(outs["k"])
    assert outs["m"] == outs["k"]


def test_a_takes_1m_as_a_length_not_a_usage_error(data_dir, tmp_path):
    """Before: ``Invalid value for '--lengths'`` (exit 2). Now 1M is a length of 1000 documents of
    1000 tokens, which the 50 essays cannot fill: the build's own one-line error (exit 1)."""
    res = CliRunner().invoke(
        main,
        ["a", "--haystack", str(data_dir / "pg_essays"), "--modes", "multi", "--levels", "hard",
         "--lengths", "1M", "--tasks", "1", "--out", str(tmp_path / "o")],
    )  # fmt: skip
    assert res.exit_code == 1, res.output
    assert "Invalid value" not in res.output and "1000 are needed" in res.output
