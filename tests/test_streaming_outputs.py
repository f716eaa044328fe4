"""Outputs are written as tasks stream in, in exactly the bytes of the whole-list writers
(issue 12 item 4): memory is then flat in the number of tasks (figures: bench/assemble.py)."""

from __future__ import annotations

import random

from reflong.assemble.records import DocumentRecord, TaskRecord
from reflong.assemble.writers.config_writer import ConfigWriter
from reflong.assemble.writers.parquet import ParquetDatasetWriter, dataset_features, write_parquet
from reflong.assemble.writers.reflong_json import ReflongJsonWriter, write_reflong_files
from reflong.assemble.writers.stats import config_stats


def _tasks(n: int, config: str = "single_stars_hard_8K") -> list[TaskRecord]:
    rng = random.Random(7)
    tasks = []
    for t in range(n):
        docs = tuple(
            DocumentRecord(
                i, f"d{rng.randrange(1000)}", rng.randrange(50, 900), "t\u00e9xt " * rng.randrange(1, 40)
            )
            for i in range(8)
        )
        tasks.append(
            TaskRecord(
                config=config, task_id=t, subset="a", setting="single_stars_hard", length="8K",
                key=rng.randrange(100) if t % 2 else f"key \"{t}\" \u2013 caf\u00e9", documents=docs,
                answer=tuple(sorted(rng.sample(range(8), rng.randrange(1, 4)))),
                prompt="prompt \u00e9 " * rng.randrange(5, 50), prompt_tokens=rng.randrange(7000, 9000),
            )
        )  # fmt: skip
    return tasks


def test_streamed_outputs_are_byte_identical_to_whole_list_writers(tmp_path):
    tasks = _tasks(57)
    features = dataset_features()
    whole, streamed = tmp_path / "whole", tmp_path / "streamed"
    old = write_reflong_files(whole, tasks[0].config, tasks, "before")
    old.append(write_parquet(whole, tasks[0].config, tasks, features))
    writers = [ReflongJsonWriter("before"), ParquetDatasetWriter(features, row_group_bytes=4000)]
    with ConfigWriter(streamed, tasks[0].config, writers) as w:
        for t in iter(tasks):
            w.add(t)
    new = w.files
    assert [p.relative_to(streamed) for p in new] == [p.relative_to(whole) for p in old]
    for a, b in zip(old[:2], new[:2], strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name  # Ref-Long JSON: byte for byte
    import pyarrow.parquet as pq

    assert pq.read_table(new[2]).equals(pq.read_table(old[2]))  # same table ...
    assert pq.ParquetFile(new[2]).metadata.num_row_groups > 1  # ... in bounded row groups
    assert pq.read_schema(new[2]).metadata == pq.read_schema(old[2]).metadata  # HF features travel
    assert w.stats == config_stats(tasks[0].config, tasks)
    one = tmp_path / "one"  # below the row-group size: the very bytes `datasets` wrote
    with ConfigWriter(
        one, tasks[0].config, [ReflongJsonWriter("before"), ParquetDatasetWriter(features)]
    ) as w1:
        for t in tasks:
            w1.add(t)
    assert w1.files[2].read_bytes() == old[2].read_bytes()


def test_a_failed_stream_leaves_no_file(tmp_path):
    tasks = _tasks(5)
    try:
        writers = [ReflongJsonWriter("before"), ParquetDatasetWriter(dataset_features())]
        with ConfigWriter(tmp_path, tasks[0].config, writers) as w:
            for t in tasks:
                w.add(t)
            raise RuntimeError("the generator failed half-way")
    except RuntimeError:
        pass
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
