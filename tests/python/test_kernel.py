"""Kernels called on arrays: numpy zero-copy, strided views copied, torch
tensors, anything with __dlpack__; wrong arguments named."""
import numpy as np
import pytest

import kiln
from kiln import te

from conftest import TARGET, matmul_func


@pytest.fixture(scope="module")
def kernel():
    return kiln.build(matmul_func(), TARGET)


@pytest.fixture
def ab(rng):
    return rng.standard_normal((32, 16), dtype=np.float32), rng.standard_normal((16, 24), dtype=np.float32)


def test_output_written_in_place(kernel, ab):
    a, b = ab
    out = np.full((32, 24), np.nan, np.float32)
    assert kernel(a, b, out) is None
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


def test_output_allocated_when_not_given(kernel, ab):
    a, b = ab
    c = kernel(a, b)
    assert isinstance(c, np.ndarray) and c.shape == (32, 24) and c.dtype == np.float32
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_contiguous_arrays_are_not_copied(ab):
    # A kernel that writes its input's address range through the output
    # would be wrong; what zero copy means is visible in the output: a view
    # into a larger array gets written where the view lies.
    a, b = ab
    k = kiln.build(matmul_func(), TARGET)
    big = np.zeros((64, 24), np.float32)
    k(a, b, big[16:48])  # C-contiguous rows of big
    np.testing.assert_allclose(big[16:48], a @ b, rtol=1e-5, atol=1e-5)
    assert not big[:16].any() and not big[48:].any()


def test_strided_input_and_output_are_copied(kernel, ab):
    a, b = ab
    a_t = np.ascontiguousarray(a.T).T  # Fortran-ordered view of a
    assert not a_t.flags.c_contiguous
    out_big = np.zeros((24, 32), np.float32)
    out = out_big.T  # a transposed, writable view
    kernel(a_t, b[:, :], out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out_big, (a @ b).T, rtol=1e-5, atol=1e-5)
    stepped = np.zeros((32, 48), np.float32)[:, ::2]
    kernel(a, b, stepped)
    np.testing.assert_allclose(stepped, a @ b, rtol=1e-5, atol=1e-5)


def test_torch_tensors(kernel, ab):
    torch = pytest.importorskip("torch")
    a, b = ab
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    out = torch.zeros(32, 24)
    kernel(ta, tb, out)
    torch.testing.assert_close(out, ta @ tb, rtol=1e-5, atol=1e-5)
    # a transposed tensor: strided, copied
    kernel(ta.t().contiguous().t(), tb, out)
    torch.testing.assert_close(out, ta @ tb, rtol=1e-5, atol=1e-5)
    # a strided output is written back where its elements lie
    wide = torch.zeros(32, 48)
    kernel(ta, tb, wide[:, ::2])
    torch.testing.assert_close(wide[:, ::2], ta @ tb, rtol=1e-5, atol=1e-5)
    assert not wide[:, 1::2].any()
    # an input that requires grad is read; an output that does is refused
    kernel(ta.clone().requires_grad_(), tb, out)
    torch.testing.assert_close(out, ta @ tb, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="requires grad"):
        kernel(ta, tb, torch.zeros(32, 24, requires_grad=True))
    with pytest.raises(TypeError, match="float64, the kernel takes float32"):
        kernel(ta.double(), tb, out)


def test_any_dlpack_producer(kernel, ab):
    class OnlyDLPack:
        def __init__(self, arr):
            self._arr = arr

        def __dlpack__(self, stream=None):
            return self._arr.__dlpack__()

    a, b = ab
    if not hasattr(a, "__dlpack__"):
        pytest.skip("this numpy has no __dlpack__")
    out = np.zeros((32, 24), np.float32)
    kernel(OnlyDLPack(a), OnlyDLPack(b), out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


def test_wrong_arguments_are_named(kernel, ab):
    a, b = ab
    with pytest.raises(TypeError, match=r"argument 0 \(A\) is float64, the kernel takes float32"):
        kernel(a.astype(np.float64), b)
    with pytest.raises(TypeError, match=r"argument 1 \(B\) has shape \(16, 23\), the kernel takes \(16, 24\)"):
        kernel(a, b[:, :23])
    with pytest.raises(TypeError, match="takes 2 inputs and the output"):
        kernel(a)
    with pytest.raises(TypeError, match="not an array"):
        kernel(a, [[1.0]])
    ro = np.zeros((32, 24), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        kernel(a, b, ro)


def test_other_dtypes(rng):
    for dtype in ["float64", "int8", "int64", "uint16", "float16"]:
        A = te.placeholder((10,), dtype, name="A")
        B = te.compute((10,), lambda i: A[i] + A[i], name="B")
        a = (rng.standard_normal(10) * 20).astype(dtype)
        np.testing.assert_array_equal(kiln.build(te.create_prim_func([A, B]), TARGET)(a), a + a)


def test_target_parses_and_names_bad_parts():
    t = kiln.Target("llvm -num-cores=2")
    assert t.kind == "llvm" and t.num_cores == 2 and "-num-cores=2" in str(t)
    assert kiln.Target(str(t)) == t
    assert kiln.Target.host().mcpu
    with pytest.raises(kiln.KilnError, match="num-cores"):
        kiln.Target("llvm -num-cores=zero")
    with pytest.raises(kiln.KilnError, match="bogus"):
        kiln.Target("bogus")


def test_kernel_describes_itself_and_times(kernel):
    assert [p["name"] for p in kernel.params] == ["A", "B", "C"]
    assert kernel.params[2]["output"] and not kernel.params[0]["output"]
    assert "parallel" in str(kernel.lowered) or "for" in str(kernel.lowered)
    secs = kernel.time(repeat=2)
    assert 0 < secs < 1
