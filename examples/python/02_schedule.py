"""2. Schedule by hand: tile, reorder, vectorize, parallelize; read the IR and
the trace each step leaves, and time the result against the default program.

Run: python3 examples/python/02_schedule.py
"""
import numpy as np

import kiln

target = kiln.Target("llvm -num-cores=2")
matmul = kiln.workload("matmul:M=256,N=256,K=256")  # the operator library's matmul: the same block form

sch = kiln.Schedule(matmul)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
i0, i1 = sch.split(i, [None, 8])         # rows of 8
j0, j1 = sch.split(j, [None, 32])        # columns of 32: two AVX-512 (four AVX2) vectors
sch.reorder(i0, j0, k, i1, j1)           # k outside the register tile
sch.vectorize(j1)
sch.parallel(i0)
print(sch.mod)                           # the scheduled function
print(sch.trace)                         # the schedule as a trace (JSON), what the database stores

try:
    sch.split(k, [5, 7])                 # 35 != 256: refused, and the schedule stays as it was
except kiln.FactorError as e:
    print("refused:", e.kind, "-", e)

hand = kiln.build(sch, target)
default = kiln.build(matmul, target)
a = np.random.rand(256, 256).astype("float32")
b = np.random.rand(256, 256).astype("float32")
np.testing.assert_allclose(hand(a, b), a @ b, rtol=1e-4)
t_hand, t_default = hand.time(repeat=3), default.time(repeat=3)
print(f"by hand {t_hand * 1e3:.3f} ms, default program {t_default * 1e3:.3f} ms")
