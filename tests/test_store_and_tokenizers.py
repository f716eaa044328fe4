"""The package, the store and the shared pieces every stage stands on."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer
from reflong.db import Paper, open_store, record_failure, session_for


def test_store_is_wal_and_has_tables(db_path):
    open_store(db_path)
    con = sqlite3.connect(db_path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    assert {"paper", "paper_role", "failure", "parsed_doc", "chunk"} <= tables


def test_failure_records_are_idempotent(db_path):
    engine = open_store(db_path)
    with session_for(engine) as s:
        s.add(Paper(arxiv_id="2401.00001", version=1, title="T"))
        record_failure(s, "download", "2401.00001v1", "http-404", "first")
        s.commit()
        record_failure(s, "download", "2401.00001v1", "http-503", "second")
        s.commit()
    out = CliRunner().invoke(main, ["stats", "--db", str(db_path), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["papers"] == 1
    assert data["failures"] == {"download": {"http-503": 1}}


def test_tokenizers_count_exactly():
    o200k = get_tokenizer("o200k_base")
    cl100k = get_tokenizer("cl100k_base")
    # Known token ids (identical to tiktoken's): "hello world" is [24912, 2375] in o200k_base.
    assert o200k.encode("hello world") == [24912, 2375]
    assert cl100k.encode("hello world") == [15339, 1917]
    text = "The little penguin counted 42 ★"
    assert o200k.decode(o200k.encode(text)) == text
    # FORMAT.md: one star sentence is 8 tokens in both encodings (with its leading space).
    assert o200k.count(" " + text) == 8 and cl100k.count(" " + text) == 8


def test_unknown_tokenizer_is_a_one_line_error(db_path):
    import pytest

    from reflong.common.errors import ReflongError

    with pytest.raises(ReflongError, match="unknown tokenizer"):
        get_tokenizer("gpt5_base")


def test_cli_errors_are_one_line(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("this is not a database\n" * 100)
    out = CliRunner().invoke(main, ["stats", "--db", str(bad)])
    assert out.exit_code == 1
    assert out.output.strip().startswith("Error:") and len(out.output.strip().splitlines()) == 1


def test_store_from_an_older_version_gains_new_columns(db_path):
    """A column added in a later version is added in place; the rows already stored stay."""
    con = sqlite3.connect(db_path)
    con.execute(
        "CREATE TABLE parsed_doc (id INTEGER PRIMARY KEY, pdf_sha256 VARCHAR NOT NULL, parser_version VARCHAR)"
    )
    con.execute("INSERT INTO parsed_doc (pdf_sha256, parser_version) VALUES ('abc', 'p1')")
    con.commit()
    con.close()
    open_store(db_path)
    con = sqlite3.connect(db_path)
    columns = {row[1] for row in con.execute("PRAGMA table_info(parsed_doc)")}
    assert {"body_text", "references_text", "has_references", "n_tokens"} <= columns
    assert con.execute("SELECT pdf_sha256, n_tokens, status FROM parsed_doc").fetchall() == [
        ("abc", 0, "parsed")
    ]
