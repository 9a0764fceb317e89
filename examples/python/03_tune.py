"""3. Tune: let the search find the schedule. Candidates are built and
measured in child processes, checked against the default program, and kept
in a tuning database that later builds (and the command line) reuse.

Run: python3 examples/python/03_tune.py [TRIALS]   (64 by default)
"""
import sys

import numpy as np

import kiln

trials = int(sys.argv[1]) if len(sys.argv) > 1 else 64
target = kiln.Target("llvm -num-cores=2")
matmul = kiln.workload("matmul:M=256,N=256,K=256")

best = kiln.tune_op(matmul, target, db="tutorial.db", trials=trials)  # Ctrl-C stops, keeping what was measured
print("best record:", best, "of", len(kiln.Database("tutorial.db").records(matmul, target)), "trials")

tuned = kiln.build(matmul, target, db="tutorial.db")  # the database's best schedule
a = np.random.rand(256, 256).astype("float32")
b = np.random.rand(256, 256).astype("float32")
np.testing.assert_allclose(tuned(a, b), a @ b, rtol=1e-4)
print(f"tuned {tuned.time(repeat=3) * 1e3:.3f} ms, default {kiln.build(matmul, target).time(repeat=3) * 1e3:.3f} ms")
print("the same from the command line: kiln bench-op matmul:M=256,N=256,K=256 --db tutorial.db "
      f"--target '{target}'")
