"""Tuning from Python: a Python-defined operator is a workload like any
other (tuned, stored, looked up; the command line reuses its record), the
progress shows, Ctrl-C keeps what was measured, bad input is named."""
import json
import os
import signal
import subprocess

import numpy as np
import pytest

import kiln

from conftest import TARGET, matmul_silu_func, silu


def test_tune_op_stores_and_build_reuses(tmp_path, capfd, rng, kiln_exe):
    db = str(tmp_path / "tuning.db")
    f = matmul_silu_func()
    rec = kiln.tune_op(f, TARGET, db=db, trials=16, batch_size=8, progress="text")
    err = capfd.readouterr().err
    assert "round 1: 8/16 trials" in err and "round 2: 16/16 trials" in err
    assert "best" in err and "elapsed" in err and "ETA" in err

    assert isinstance(rec, kiln.Record) and rec.ok and rec.workload_key == f.workload_key
    assert rec.target == str(kiln.Target(TARGET))
    assert len(kiln.Database(db).records(f, TARGET)) == 16
    assert kiln.Database(db).best(f, TARGET).id == rec.id

    k = kiln.build(f, TARGET, db=db)
    x = rng.standard_normal((32, 16), dtype=np.float32)
    w = rng.standard_normal((16, 24), dtype=np.float32)
    np.testing.assert_allclose(k(x, w), silu(x @ w), rtol=1e-5, atol=1e-5)
    assert f"record {rec.id} " in k.record and str(k.scheduled) != str(kiln.build(f, TARGET).scheduled)

    # The command line takes the function by its key from the same database.
    out = subprocess.run([kiln_exe, "bench-op", f.workload_key, "--db", db, "--target", TARGET, "--repeat", "2",
                          "--check", "--json"], capture_output=True, text=True, check=True)
    assert f"record {rec.id} " in out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["check_passed"]
    # ... and tunes it further, resuming from the 16 trials stored.
    out = subprocess.run([kiln_exe, "tune-op", f.workload_key, "--db", db, "--target", TARGET, "--trials", "24",
                          "--batch-size", "8", "--final-top", "0", "--json"], capture_output=True, text=True, check=True)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["measured_now"] == 8 and summary["trials_done"] == 24


def test_tune_op_takes_workload_strings_and_shows_tqdm(tmp_path, capfd):
    pytest.importorskip("tqdm")
    db = str(tmp_path / "t.db")
    rec = kiln.tune_op("matmul:M=16,N=16,K=16", TARGET, db=db, trials=8, batch_size=8, progress="tqdm", final_top=0)
    err = capfd.readouterr().err
    assert "8/8" in err and "trials" in err
    assert rec.ok and rec.workload_key == kiln.workload("matmul:M=16,N=16,K=16").workload_key


def test_ctrl_c_stops_after_the_batch_and_keeps_it(tmp_path):
    db = str(tmp_path / "stop.db")
    f = matmul_silu_func(m=16, n=16, k=16)
    seen = []

    def interrupt_once(event):
        seen.append(event["trials"])
        if len(seen) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    rec = kiln.tune_op(f, TARGET, db=db, trials=64, batch_size=8, progress=interrupt_once)
    assert seen and seen[-1] < 64
    stored = kiln.Database(db).records(f, TARGET)
    assert len(stored) == seen[-1] >= 8
    assert rec is not None and rec.ok
    # a later call resumes from what was kept
    rec2 = kiln.tune_op(f, TARGET, db=db, trials=seen[-1] + 8, batch_size=8, progress=False, final_top=0)
    assert len(kiln.Database(db).records(f, TARGET)) == seen[-1] + 8 and rec2.ok


def test_bad_input_is_named_and_loses_nothing(tmp_path):
    with pytest.raises(kiln.KilnError, match="nope"):
        kiln.tune_op("nope:M=1", TARGET, db=str(tmp_path / "x.db"), trials=8)
    with pytest.raises(ValueError, match="positive"):
        kiln.tune_op("matmul:M=16,N=16,K=16", TARGET, db=str(tmp_path / "x.db"), trials=0)
    with pytest.raises(kiln.KilnError, match="bogus_option"):
        kiln.tune_op("matmul:M=16,N=16,K=16", TARGET, db=str(tmp_path / "x.db"), trials=8, bogus_option=1)
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not a database" * 100)
    with pytest.raises(kiln.KilnError, match="corrupt.db"):
        kiln.tune_op("matmul:M=16,N=16,K=16", TARGET, db=str(corrupt), trials=8, progress=False)
    assert corrupt.read_bytes() == b"this is not a database" * 100
