#!/usr/bin/python3
"""The coefficients of e^r in targets/codegen/llvm/vector_math.cpp.

After exp's range reduction r lies in [-ln2/2, ln2/2]. There e^r is
fitted by a polynomial of the given degree with its constant held at 1
(so that exp(0) is exactly 1), by least squares on Chebyshev nodes,
weighted toward relative error. The fit is then evaluated as the kernel
does (float32, Horner) against exp in double, and the worst relative
error printed beside Taylor's of the same degree.

    /usr/bin/python3 scripts/fit_exp.py [degree, default 6]

needs numpy (Debian's python3-numpy). Not run by the build or the tests.
"""
import math
import sys

import numpy as np


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    half = math.log(2) / 2
    x = np.cos(np.linspace(0, np.pi, 8001)) * half
    powers = np.vander(x, degree + 1, increasing=True)[:, 1:]
    weight = np.exp(-x)
    tail, *_ = np.linalg.lstsq(powers * weight[:, None], (np.exp(x) - 1) * weight, rcond=None)
    coefficients = np.concatenate([[1.0], tail])
    xs = np.linspace(-half, half, 200001).astype(np.float32)
    acc = np.full_like(xs, np.float32(coefficients[-1]))
    for c in coefficients[-2::-1]:
        acc = (acc * xs + np.float32(c)).astype(np.float32)
    want = np.exp(xs.astype(np.float64))
    taylor = sum(xs.astype(np.float64) ** k / math.factorial(k) for k in range(degree + 1))
    print("coefficients:", ", ".join(repr(float(c)) for c in coefficients))
    print("worst relative error, float32 Horner: %.3g (Taylor of degree %d, exact arithmetic: %.3g)"
          % (np.max(np.abs(acc / want - 1)), degree, np.max(np.abs(taylor / want - 1))))


if __name__ == "__main__":
    main()
