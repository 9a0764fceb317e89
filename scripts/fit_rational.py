#!/usr/bin/python3
"""The coefficients of erf and tanh in targets/codegen/llvm/vector_math.cpp.

f(x) = x * P(x^2) / Q(x^2) on [0, hi], Q(0) = 1, for the odd functions
erf (hi 3.92, P of 7 terms, Q of 5 past its 1) and tanh (9.02, 7, 6),
each of which rounds to 1 in float past its hi: a rational fit by
linearized least squares (Sanathanan-Koerner: each pass divides by the
last pass's Q, so that the residual it minimizes is the true one),
reweighted each pass toward equal relative error (Lawson), on Chebyshev
nodes. The coefficients are rounded to float, and the fit is then
evaluated as the kernel does (float, each Horner step one fused
multiply-add) against math.erf or math.tanh in double; the script also
checks that Q has no zero on the interval.

    /usr/bin/python3 scripts/fit_rational.py erf|tanh [hi] [P terms] [Q terms past 1]

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


DEFAULTS = {"erf": (math.erf, 3.92, 7, 5), "tanh": (math.tanh, 9.02, 7, 6)}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in DEFAULTS:
        sys.exit("usage: fit_rational.py erf|tanh [hi] [P terms] [Q terms past 1]")
    f, hi, p_terms, q_terms = DEFAULTS[sys.argv[1]]
    hi = float(sys.argv[2]) if len(sys.argv) > 2 else hi
    p_terms = int(sys.argv[3]) if len(sys.argv) > 3 else p_terms
    q_terms = int(sys.argv[4]) if len(sys.argv) > 4 else q_terms
    p, q = fit(f, hi, p_terms, q_terms)
    if np.polyval(q[::-1], np.linspace(0, hi * hi, 100001)).min() <= 0:
        sys.exit("Q has a zero on the interval: try other degrees")
    xs = np.linspace(1e-6, hi, 200001).astype(np.float32)
    t = (xs.astype(np.float64) ** 2).astype(np.float32)
    got = ((xs * horner_fma(p, t)).astype(np.float32) / horner_fma(q, t)).astype(np.float32)
    want = np.array([f(float(v)) for v in xs])
    rel = np.abs(got - want) / want
    print("P", ", ".join(repr(v) for v in p))
    print("Q", ", ".join(repr(v) for v in q))
    print(f"worst relative error {rel.max():.3g} at {xs[rel.argmax()]}; 1 - {sys.argv[1]}({hi}) = {1 - f(hi):.3g}")


if __name__ == "__main__":
    main()
