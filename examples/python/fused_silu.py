"""A new fused operator in 20 lines: x * sigmoid(x) after a matmul, tuned for
64 trials and run on a torch tensor. Run: python3 examples/python/fused_silu.py [TRIALS]"""
import sys

import torch

import kiln
from kiln import te

M, N, K = 512, 512, 512
X = te.placeholder((M, K), "float32", name="X")
W = te.placeholder((K, N), "float32", name="W")
k = te.reduce_axis((0, K), name="k")
Y = te.compute((M, N), lambda i, j: te.sum(X[i, k] * W[k, j], axis=k), name="Y")
Z = te.compute((M, N), lambda i, j: Y[i, j] * te.sigmoid(Y[i, j]), name="Z")
f = te.create_prim_func([X, W, Z], name="matmul_silu")

target = kiln.Target("llvm -num-cores=2")
kiln.tune_op(f, target, db="silu.db", trials=int(sys.argv[1]) if len(sys.argv) > 1 else 64)
kernel = kiln.build(f, target, db="silu.db")
x, w = torch.randn(M, K), torch.randn(K, N)
torch.testing.assert_close(torch.from_numpy(kernel(x, w)), torch.nn.functional.silu(x @ w), rtol=1e-4, atol=1e-4)
print(f"{kernel.time() * 1e3:.3f} ms; the CLI: kiln bench-op {f.workload_key} --db silu.db --target '{target}'")
