"""Seed abstracts from arXiv metadata, for `paper --key-form abstract` (issue 22, item 4).

arXivRaw carries ``<abstract>`` (arXiv's arXivRaw.xsd); the harvest keeps it, whitespace
collapsed, in ``arxiv_record.abstract`` of a real SQLite store, and assembly reads it from there.
"""

from __future__ import annotations

from lxml import etree
from sqlmodel import Session

from reflong.assemble.paper.abstracts import with_abstracts
from reflong.assemble.paper.model import KeyCandidate
from reflong.db.engine import open_store
from reflong.ingest.harvest.arxivraw import parse_record
from reflong.ingest.harvest.stored_records import store_records

RECORD = """<record xmlns="http://www.openarchives.org/OAI/2.0/">
<header><identifier>oai:arXiv.org:2403.00001</identifier><datestamp>2024-03-02</datestamp></header>
<metadata><arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/">
<id>2403.00001</id>
<version version="v1"><date>Fri, 1 Mar 2024 10:00:00 GMT</date><size>100kb</size></version>
<title>A Title</title><authors>A. One and B. Two</authors><categories>cs.CL</categories>
<abstract>  We study long contexts.
  It works
 well. </abstract>
</arXivRaw></metadata></record>"""


def test_arxivraw_abstract_is_stored_and_read_back(tmp_path):
    record = parse_record(etree.fromstring(RECORD.encode()))
    assert record.abstract == "We study long contexts. It works well."
    engine = open_store(tmp_path / "store.db")
    with Session(engine) as session:
        store_records(session, [record], "oai", merge=False)
        session.commit()
    keys = [
        KeyCandidate("2403.00001", "A Title", "2024-03-01", ()),
        KeyCandidate("2403.00002", "B", "2024-03-01", ()),
    ]
    found = with_abstracts(engine, keys)
    assert [k.abstract for k in found] == ["We study long contexts. It works well.", ""]
