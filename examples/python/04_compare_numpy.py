"""4. Compare with numpy: the kernel tuned in step 3 against numpy's matmul
(OpenBLAS or whatever BLAS numpy links), the same arrays, timed alike.

Run after 03_tune.py: python3 examples/python/04_compare_numpy.py
"""
import timeit

import numpy as np

import kiln

target = kiln.Target("llvm -num-cores=2")
matmul = kiln.workload("matmul:M=256,N=256,K=256")
kernel = kiln.build(matmul, target, db="tutorial.db")

a = np.random.rand(256, 256).astype("float32")
b = np.random.rand(256, 256).astype("float32")
c = np.empty((256, 256), "float32")
kernel(a, b, c)
np.testing.assert_allclose(c, a @ b, rtol=1e-4)


def best_of(fn, number=20, repeat=5):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


t_kiln = best_of(lambda: kernel(a, b, c))
t_numpy = best_of(lambda: np.matmul(a, b, out=c))
print(f"kiln {t_kiln * 1e6:.1f} us, numpy {t_numpy * 1e6:.1f} us per call (numpy/kiln = {t_numpy / t_kiln:.2f})")
