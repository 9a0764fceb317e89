"""Compute definitions from Python: what te builds, checked as IR and run
against numpy through the interpreter and a compiled kernel."""
import numpy as np
import pytest

import kiln
from kiln import te

from conftest import TARGET, matmul_func, matmul_silu_func, silu


def test_matmul_definition_prints_as_block_form():
    f = matmul_func(8, 4, 2)
    text = str(f)
    assert "T.block(\"C\")" in text and "T.axis.reduce" in text
    assert [p["name"] for p in f.params] == ["A", "B", "C"]
    assert f.params[2]["shape"] == (8, 4) and f.params[2]["dtype"] == "float32"


def test_same_definition_same_workload_key_other_shape_other_key():
    assert matmul_func().workload_key == matmul_func().workload_key
    assert matmul_func().workload_key.startswith("v1-")
    assert matmul_func(m=33).workload_key != matmul_func().workload_key
    assert matmul_func() == matmul_func()


def test_workload_string_gives_the_operator_librarys_function():
    f = kiln.workload("matmul:M=32,N=24,K=16")
    assert [p["shape"] for p in f.params] == [(32, 16), (16, 24), (32, 24)]


def test_text_and_json_round_trip():
    f = matmul_silu_func()
    assert str(kiln.PrimFunc.from_json(f.to_json())) == str(f)
    assert kiln.PrimFunc.from_text(f.script()).workload_key == f.workload_key


def test_fused_operator_runs_as_numpy_computes_it(rng):
    f = matmul_silu_func()
    x = rng.standard_normal((32, 16), dtype=np.float32)
    w = rng.standard_normal((16, 24), dtype=np.float32)
    want = silu(x @ w)
    got = kiln.build(f, TARGET)(x, w)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    interp = np.zeros((32, 24), np.float32)
    kiln.reference(f, x, w, interp)
    np.testing.assert_allclose(interp, want, rtol=1e-5, atol=1e-5)


def test_numbers_take_the_expressions_type(rng):
    A = te.placeholder((16,), "float32", name="A")
    B = te.compute((16,), lambda i: 2 * A[i] + 0.5 - A[i] / 4.0, name="B")
    assert B.dtype == "float32"
    a = rng.standard_normal(16, dtype=np.float32)
    np.testing.assert_allclose(kiln.build(te.create_prim_func([A, B]), TARGET)(a), 2 * a + 0.5 - a / 4, rtol=1e-6)


def test_index_arithmetic_and_integer_tensors(rng):
    A = te.placeholder((8, 6), "int32", name="A")
    B = te.compute((4, 3), lambda i, j: A[i * 2, j * 2 + 1] // 3 + A[i + 1, j] % 4, name="B")
    a = rng.integers(-50, 50, (8, 6), dtype=np.int32)
    want = np.array([[a[i * 2, j * 2 + 1] // 3 + a[i + 1, j] % 4 for j in range(3)] for i in range(4)], np.int32)
    np.testing.assert_array_equal(kiln.build(te.create_prim_func([A, B]), TARGET)(a), want)


def test_reductions_max_min_and_elementwise_max_min(rng):
    A = te.placeholder((6, 10), "float32", name="A")
    k = te.reduce_axis((0, 10), name="k")
    mx = te.compute((6,), lambda i: te.max(A[i, k], axis=k), name="mx")
    k2 = te.reduce_axis((2, 10), name="k2")
    mn = te.compute((6,), lambda i: te.min(A[i, k2], axis=k2), name="mn")
    clip = te.compute((6, 10), lambda i, j: te.min(te.max(A[i, j], 0.0), 0.5), name="clip")
    a = rng.standard_normal((6, 10), dtype=np.float32)
    np.testing.assert_array_equal(kiln.build(te.create_prim_func([A, mx]), TARGET)(a), a.max(axis=1))
    np.testing.assert_array_equal(kiln.build(te.create_prim_func([A, mn]), TARGET)(a), a[:, 2:].min(axis=1))
    np.testing.assert_array_equal(kiln.build(te.create_prim_func([A, clip]), TARGET)(a), np.clip(a, 0, 0.5))


@pytest.mark.parametrize(
    "name, ref",
    [("exp", np.exp), ("tanh", np.tanh), ("sqrt", lambda x: np.sqrt(np.abs(x))), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
     ("abs", np.abs), ("floor", np.floor), ("sin", np.sin), ("erf", None)],
)
def test_elementwise_math(name, ref, rng):
    A = te.placeholder((64,), "float32", name="A")
    fn = getattr(te, name)
    body = (lambda i: fn(te.abs(A[i]))) if name == "sqrt" else (lambda i: fn(A[i]))
    B = te.compute((64,), body, name="B")
    a = rng.standard_normal(64, dtype=np.float32)
    got = kiln.build(te.create_prim_func([A, B]), TARGET)(a)
    if ref is None:  # erf: numpy has none; the interpreter computes in double
        ref_out = np.zeros(64, np.float32)
        kiln.reference(te.create_prim_func([A, B]), a, ref_out)
        np.testing.assert_allclose(got, ref_out, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(got, ref(a), rtol=2e-6, atol=1e-6)


def test_select_cast_and_pow(rng):
    A = te.placeholder((32,), "float32", name="A")
    leaky = te.compute((32,), lambda i: te.select(A[i] > 0, A[i], A[i] * 0.1), name="leaky")
    ramp = te.compute((32,), lambda i: te.cast(i, "float32") * A[i] ** 2, name="ramp")
    a = rng.standard_normal(32, dtype=np.float32)
    np.testing.assert_allclose(kiln.build(te.create_prim_func([A, leaky]), TARGET)(a), np.where(a > 0, a, a * 0.1),
                               rtol=1e-6)
    np.testing.assert_allclose(kiln.build(te.create_prim_func([A, ramp]), TARGET)(a),
                               np.arange(32, dtype=np.float32) * a ** 2, rtol=1e-5)


def test_type_errors_name_both_types():
    A = te.placeholder((4,), "float32", name="A")
    I = te.placeholder((4,), "int32", name="I")
    with pytest.raises(TypeError, match="float32 and int32"):
        te.compute((4,), lambda i: A[i] + I[i], name="bad")
    with pytest.raises(TypeError, match="integers divide with //"):
        te.compute((4,), lambda i: I[i] / 2, name="bad")
    with pytest.raises(TypeError, match="float 0.5 meets an expression of type int32"):
        te.compute((4,), lambda i: I[i] * 0.5, name="bad")
    with pytest.raises(IndexError, match="A has 1 dimensions, indexed with 2"):
        te.compute((4,), lambda i: A[i, i], name="bad")
    with pytest.raises(TypeError, match="no truth value"):
        te.compute((4,), lambda i: A[i] if A[i] > 0 else 0.0, name="bad")
    with pytest.raises(TypeError, match="not a data type"):
        te.placeholder((4,), "float33")


def test_an_error_in_the_body_function_propagates():
    A = te.placeholder((4,), "float32", name="A")

    def body(i):
        raise ValueError("from the body")

    with pytest.raises(ValueError, match="from the body"):
        te.compute((4,), body, name="bad")
    # and the next definition is unaffected
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    assert "A" in str(te.create_prim_func([A, B]))


def test_missing_placeholder_is_a_kiln_error():
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(kiln.KilnError):
        te.create_prim_func([B])
