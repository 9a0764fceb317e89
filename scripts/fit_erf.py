#!/usr/bin/python3
"""The coefficients of erf in targets/codegen/llvm/vector_math.cpp.

erf(x) = x * P(x^2) / Q(x^2) on [0, 3.92], Q(0) = 1: a rational fit by
linearized least squares (Sanathanan-Koerner: each pass divides by the
last pass's Q, so that the residual it minimizes is the true one),
reweighted each pass toward equal relative error (Lawson), on Chebyshev
nodes. Past 3.92 erf rounds to 1 in float. The coefficients are rounded
to float, and the fit is then evaluated as the kernel does (float, each
Horner step one fused multiply-add) against math.erf in double.

    /usr/bin/python3 scripts/fit_erf.py [hi] [P terms] [Q terms past 1]

needs numpy (Debian's python3-numpy); prints the coefficients and the
worst relative error. Not run by the build or the tests.
"""
import math
import sys

import numpy as np


def fit(f, hi, p_terms, q_terms, passes=30, nodes=4000):
    k = np.arange(nodes)
    x = np.sort(np.abs(hi / 2 + hi / 2 * np.cos(np.pi * (k + 0.5) / nodes))) + 1e-9
    y = np.array([f(v) for v in x])
    t = x * x
    weight, q_last = np.ones(nodes), np.ones(nodes)
    for _ in range(passes):
        # x P(t) - y (Q(t) - 1) = y, each row divided by |y| Q_last(t).
        a = np.hstack([x[:, None] * t[:, None] ** np.arange(p_terms), -y[:, None] * t[:, None] ** np.arange(1, q_terms + 1)])
        scale = np.abs(y) * q_last
        sw = np.sqrt(weight)
        c, *_ = np.linalg.lstsq(a / scale[:, None] * sw[:, None], y / scale * sw, rcond=None)
        p, q = c[:p_terms], np.concatenate([[1.0], c[p_terms:]])
        q_last = np.polyval(q[::-1], t)
        err = np.abs(x * np.polyval(p[::-1], t) / q_last - y) / np.abs(y)
        weight *= err / err.max() + 1e-3
        weight /= weight.mean()
    return [float(np.float32(v)) for v in p], [float(np.float32(v)) for v in q]


def horner_fma(coefficients, t):
    acc = np.full_like(t, np.float32(coefficients[-1]))
    for c in coefficients[-2::-1]:
        acc = (acc.astype(np.float64) * t + np.float64(np.float32(c))).astype(np.float32)
    return acc


def main():
    hi = float(sys.argv[1]) if len(sys.argv) > 1 else 3.92
    p_terms = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    q_terms = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    p, q = fit(math.erf, hi, p_terms, q_terms)
    xs = np.linspace(1e-6, hi, 200001).astype(np.float32)
    t = (xs.astype(np.float64) ** 2).astype(np.float32)
    got = ((xs * horner_fma(p, t)).astype(np.float32) / horner_fma(q, t)).astype(np.float32)
    want = np.array([math.erf(float(v)) for v in xs])
    rel = np.abs(got - want) / want
    print("P", ", ".join(repr(v) for v in p))
    print("Q", ", ".join(repr(v) for v in q))
    print(f"worst relative error {rel.max():.3g} at {xs[rel.argmax()]}; 1 - erf({hi}) = {1 - math.erf(hi):.3g}")


if __name__ == "__main__":
    main()
