"""The dataset card (issue 12, item 17): built with huggingface_hub's DatasetCard/DatasetCardData and
checked offline with the libraries' own metadata rules.

``DatasetCard.validate()`` posts the card to the Hub's /api/validate-yaml endpoint (it needs the
network, which tests never use), so the same rules are checked here from what the libraries ship:
huggingface_hub parses the YAML into ``DatasetCardData``; ``datasets`` ships the allowed
``size_categories`` and language codes and its known task ids, checks ``configs`` /
``data_files`` (``MetadataConfigs``) and finally loads every configuration the card declares.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main


def check_card(out: Path, subset_columns: set[str]) -> None:
    """Validate OUT/README.md as a Hugging Face dataset card, offline; load what it declares."""
    import datasets
    from datasets.utils.metadata import MetadataConfigs, known_task_ids
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(out / "README.md")
    data = card.data
    resources = Path(datasets.__file__).parent / "utils" / "resources"
    assert data.license == "other" and data.language == ["en"]
    assert data.size_categories and set(data.size_categories) <= set(
        json.loads((resources / "size_categories.json").read_text())
    )
    assert set(data.language) <= set(json.loads((resources / "languages.json").read_text()))
    assert data.task_categories and set(data.task_categories) <= set(known_task_ids)
    assert data.source_datasets and data.pretty_name
    configs = MetadataConfigs.from_dataset_card_data(data)
    assert configs
    for name, config in configs.items():
        MetadataConfigs._raise_if_data_files_field_not_valid(config)
        for entry in config["data_files"]:
            assert (out / entry["path"]).is_file(), (name, entry)
    text = card.text
    assert "arXiv 2507.09506" in text and "@inproceedings{wu2025reflong" in text
    assert "@software{reflong_build" in text
    assert f'load_dataset("path/to/this/folder", "{next(iter(configs))}", split="test")' in text
    assert "## Statistics" in text and "prompt tokens min / mean / max" in text
    described = {
        line.split("|")[1].strip().strip("`")
        for line in text.split("## Columns", 1)[1].split("\n## ", 1)[0].splitlines()
        if line.startswith("| `")
    }
    first = next(iter(configs))
    # A cache of our own: `datasets` reads HF_DATASETS_CACHE at import, so a monkeypatched variable
    # does not move it, and its shared cache keys a local folder by name ("out") and settings, not by
    # the files' content: a build from an older version in the same-named folder would be read back.
    ds = datasets.load_dataset(str(out), first, split="test", cache_dir=str(out.parent / "hf_cache"))
    assert set(ds.column_names) == described == subset_columns, (ds.column_names, described)
    assert len(ds) > 0


SHARED = {
    "task_id", "subset", "setting", "length", "n_documents", "layout", "key", "documents", "answer",
    "prompt", "prompt_tokens",
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_card_is_a_valid_dataset_card(tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))
    out = tmp_path / "Ref-Long-A"
    args = ["a", "--haystack", str(data_dir / "pg_essays"), "--out", str(out), "--modes", "single",
            "--levels", "easy", "--lengths", "8K,16K", "--tasks", "4"]  # fmt: skip
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    check_card(out, SHARED)
    card = (out / "README.md").read_text()
    assert "| single_stars_easy_8K | 4 | 8 |" in card  # the statistics stay


def test_card_bytes_are_deterministic(tmp_path, data_dir):
    """Same build, two folders: the same card bytes (no paths, no dates); without parquet, no configs."""
    args = ["a", "--haystack", str(data_dir / "pg_essays"), "--modes", "single", "--levels", "easy",
            "--lengths", "8K", "--tasks", "3"]  # fmt: skip
    for name in ("x", "y"):
        assert CliRunner().invoke(main, [*args, "--out", str(tmp_path / name)]).exit_code == 0
    assert (tmp_path / "x" / "README.md").read_bytes() == (tmp_path / "y" / "README.md").read_bytes()
    assert CliRunner().invoke(main, [*args, "--no-dataset", "--out", str(tmp_path / "z")]).exit_code == 0
    assert "configs" not in (tmp_path / "z" / "README.md").read_text().split("---")[1]
