"""kiln.Database: what a tuning database holds, read and moved around as
`kiln db` does it, with a corrupt file named and left alone."""
import json

import pytest

import kiln

from conftest import TARGET, matmul_func


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """A database with one workload tuned for 8 trials."""
    db = str(tmp_path_factory.mktemp("db") / "tuning.db")
    f = matmul_func(16, 16, 16, name="mm16")
    kiln.tune_op(f, TARGET, db=db, trials=8, batch_size=8, progress=False, final_top=2)
    return db, f


def test_records_best_top_k_targets(tuned):
    path, f = tuned
    db = kiln.Database(path)
    assert len(db) == 8
    recs = db.records(f, TARGET)
    assert len(recs) == 8 and all(r.workload_key == f.workload_key for r in recs)
    assert [r.id for r in db.records()] == [r.id for r in recs]
    top = db.top_k(f, TARGET, k=3)
    assert 1 <= len(top) <= 3 and all(r.ok for r in top)
    timed_again = [r for r in top if r.final_secs]  # ranked first, by their final measurement
    assert [r.id for r in top[: len(timed_again)]] == [r.id for r in timed_again]
    assert [r.secs for r in timed_again] == sorted(r.secs for r in timed_again)
    assert db.best(f, TARGET).id == top[0].id
    assert db.best(f.workload_key, TARGET).id == top[0].id
    assert db.targets(f) == [str(kiln.Target(TARGET))]
    assert db.best(f, "llvm -num-cores=1") is None
    assert db.best(matmul_func(8, 8, 8), TARGET) is None
    (w,) = db.workloads()
    assert w["key"] == f.workload_key and w["flops"] == 2 * 16 ** 3
    stats = db.stats()
    assert stats["records"] == 8 and stats["workloads"] == 1 and sum(stats["by_error"].values()) == 8
    assert sum(stats["by_target"].values()) == 8
    d = top[0].to_dict()
    assert d["id"] == top[0].id and json.loads(d["trace"])


def test_export_import_merge_prune(tuned, tmp_path):
    path, f = tuned
    db = kiln.Database(path)
    lines = db.export(str(tmp_path / "all.jsonl"))
    assert lines == 9  # one workload, eight records

    other = kiln.Database(str(tmp_path / "other.db"))
    assert other.import_jsonl(str(tmp_path / "all.jsonl")) == {"workloads": 1, "records": 8, "added": 8, "duplicates": 0}
    assert other.import_jsonl(str(tmp_path / "all.jsonl"))["duplicates"] == 8
    assert other.best(f, TARGET).trace == db.best(f, TARGET).trace

    third = kiln.Database(str(tmp_path / "third.db"))
    assert third.merge(path)["added"] == 8
    assert third.merge(other)["added"] == 0
    assert third.prune(2) == 6 and len(third) == 2


def test_bad_files_are_named_and_left_alone(tmp_path):
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"\x00garbage" * 64)
    with pytest.raises(kiln.KilnError, match="corrupt.db"):
        kiln.Database(str(corrupt))
    assert corrupt.read_bytes() == b"\x00garbage" * 64
    with pytest.raises(kiln.KilnError, match="missing.db"):
        kiln.Database(str(tmp_path / "missing.db"), create=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kiln_tuning": 1, "record": {"workload_key": "v1-x"}}\n')
    db = kiln.Database(str(tmp_path / "fresh.db"))
    with pytest.raises(kiln.KilnError, match="bad.jsonl:1"):
        db.import_jsonl(str(bad))
    assert len(db) == 0
