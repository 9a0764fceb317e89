"""1. Define an operator: a compute definition, its IR, and a first run.

A computation is written once, as what each element of the output is; kiln
turns it into loops (the block form), and kiln.build compiles its default
program for the target. Run: python3 examples/python/01_define.py
"""
import numpy as np

import kiln
from kiln import te

M, N, K = 256, 256, 256
A = te.placeholder((M, K), "float32", name="A")
B = te.placeholder((K, N), "float32", name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
matmul = te.create_prim_func([A, B, C], name="matmul")

print(matmul)  # kiln's IR text: one block per stage, its loops, what it reads and writes
print("workload key:", matmul.workload_key)  # what the tuning database files it under

kernel = kiln.build(matmul, "llvm -num-cores=2")
a = np.random.rand(M, K).astype("float32")
b = np.random.rand(K, N).astype("float32")
c = kernel(a, b)  # the output allocated and returned; kernel(a, b, c) writes into c
np.testing.assert_allclose(c, a @ b, rtol=1e-4)

# The reference interpreter runs any function, slowly and obviously right:
# what every kernel is checked against.
X = te.placeholder((4, 4), "float32", name="X")
Y = te.compute((4, 4), lambda i, j: te.exp(X[i, j] - te.cast(j, "float32")), name="Y")
ramp = te.create_prim_func([X, Y], name="ramp")
x = np.random.rand(4, 4).astype("float32")
y = np.zeros((4, 4), "float32")
kiln.reference(ramp, x, y)
np.testing.assert_allclose(y, np.exp(x - np.arange(4, dtype="float32")), rtol=1e-6)
print("default program:", f"{kernel.time(repeat=3) * 1e3:.3f} ms")
