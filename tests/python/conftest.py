"""Shared by the Python tests: kiln from the build tree (ctest sets PYTHONPATH
to build/python), small shapes, and the target every test compiles for."""
import os

import numpy as np
import pytest

import kiln

# Two threads, as the machines this suite runs on have.
TARGET = "llvm -num-cores=2"


@pytest.fixture
def target():
    return kiln.Target(TARGET)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.fixture
def kiln_exe():
    """The kiln executable the package itself found (the build tree's)."""
    exe = os.environ.get("KILN_BINARY")
    assert exe and os.access(exe, os.X_OK), exe
    return exe


def matmul_func(m=32, n=24, k=16, name="matmul"):
    from kiln import te

    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return te.create_prim_func([A, B, C], name=name)


def matmul_silu_func(m=32, n=24, k=16):
    """The fused operator of docs/python.md: x * sigmoid(x) after a matmul."""
    from kiln import te

    X = te.placeholder((m, k), "float32", name="X")
    W = te.placeholder((k, n), "float32", name="W")
    r = te.reduce_axis((0, k), name="k")
    Y = te.compute((m, n), lambda i, j: te.sum(X[i, r] * W[r, j], axis=r), name="Y")
    Z = te.compute((m, n), lambda i, j: Y[i, j] * te.sigmoid(Y[i, j]), name="Z")
    return te.create_prim_func([X, W, Z], name="matmul_silu")


def silu(x):
    return x / (1.0 + np.exp(-x))
