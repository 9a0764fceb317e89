"""Schedules from Python: every primitive, each schedule built and run
against numpy; the trace as JSON and its replay; schedule errors as their
own Python classes, leaving the schedule as it was."""
import json

import numpy as np
import pytest

import kiln
from kiln import te

from conftest import TARGET, matmul_func, matmul_silu_func, silu


@pytest.fixture
def mm(rng):
    a = rng.standard_normal((32, 16), dtype=np.float32)
    b = rng.standard_normal((16, 24), dtype=np.float32)
    return a, b, a @ b


def check(sch, a, b, want, rtol=1e-5):
    np.testing.assert_allclose(kiln.build(sch, TARGET)(a, b), want, rtol=rtol, atol=1e-5)


def test_split_reorder_parallel_vectorize_unroll(mm):
    sch = kiln.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    j0, j1 = sch.split(j, [None, 8])
    i0, i1 = sch.split(i, [4, None])
    sch.reorder(i0, j0, k, i1, j1)
    sch.parallel(i0)
    sch.vectorize(j1)
    sch.unroll(i1)
    text = str(sch.mod)
    assert "parallel" in text and "vectorized" in text and "unroll" in text
    check(sch, *mm)


def test_fuse_and_annotate(mm):
    sch = kiln.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    ij = sch.fuse(i, j)
    sch.annotate(ij, "pragma_auto_unroll_max_step", 16)
    sch.annotate(c, "note", "hello")
    assert len(sch.get_loops(c)) == 2
    assert "pragma_auto_unroll_max_step" in str(sch.mod)
    check(sch, *mm)


def test_sampling_is_recorded_and_reproducible(mm):
    def schedule(seed):
        sch = kiln.Schedule(matmul_func(), seed=seed)
        i, j, k = sch.get_loops(sch.get_block("C"))
        tiles = sch.sample_perfect_tile(j, 2, max_innermost=8)
        sch.split(j, tiles)
        unroll = sch.sample_categorical([0, 16, 64], [0.2, 0.3, 0.5])
        sch.annotate(i, "pragma_auto_unroll_max_step", unroll)
        return sch, [sch.get(t) for t in tiles], sch.get(unroll)

    a, factors_a, u_a = schedule(3)
    b, factors_b, u_b = schedule(3)
    assert factors_a == factors_b and u_a == u_b
    assert factors_a[0] * factors_a[1] == 24 and factors_a[1] <= 8
    check(a, *mm)
    decisions = [inst.get("decision") for inst in json.loads(a.trace)["instructions"] if "decision" in inst]
    assert decisions and decisions[0] == factors_a


def test_given_decisions_are_used():
    sch = kiln.Schedule(matmul_func())
    _, j, _ = sch.get_loops(sch.get_block("C"))
    assert [sch.get(t) for t in sch.sample_perfect_tile(j, 2, decision=[3, 8])] == [3, 8]
    assert [sch.get(t) for t in sch.sample_tile(j, 2, 5, decision=[5, 5])] == [5, 5]
    with pytest.raises(kiln.DecisionError):
        sch.sample_perfect_tile(j, 2, decision=[5, 5])


def test_trace_json_replays_to_the_same_program(mm):
    sch = kiln.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    sch.split(j, sch.sample_perfect_tile(j, 2, 8))
    sch.parallel(i)
    replayed = kiln.Schedule.from_trace(matmul_func(), sch.trace)
    assert str(replayed.mod) == str(sch.mod)
    assert json.loads(replayed.trace) == json.loads(sch.trace)
    check(replayed, *mm)


def test_cache_read_write_compute_at_reverse_compute_at(mm):
    sch = kiln.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    i0, i1 = sch.split(i, [None, 8])
    cw = sch.cache_write(c, 0, "local")
    sch.reverse_compute_at(cw, i0)
    cr = sch.cache_read(c, 0, "global")
    sch.compute_at(cr, i0)
    text = str(sch.mod)
    assert "C_local" in text
    check(sch, *mm)


def test_decompose_reduction_and_rfactor(rng):
    sch = kiln.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    init = sch.decompose_reduction(c, k)
    assert "T.block(\"C_init\")" in str(sch.mod) and "T.init()" not in str(sch.mod)
    assert len(sch.get_loops(init)) == 2  # before k, under i and j
    a = rng.standard_normal((32, 16), dtype=np.float32)
    b = rng.standard_normal((16, 24), dtype=np.float32)
    check(sch, a, b, a @ b)

    A = te.placeholder((8, 64), "float32", name="A")
    r = te.reduce_axis((0, 64), name="r")
    S = te.compute((8,), lambda i: te.sum(A[i, r], axis=r), name="S")
    sch = kiln.Schedule(te.create_prim_func([A, S]))
    s = sch.get_block("S")
    _, r = sch.get_loops(s)
    _, r1 = sch.split(r, [None, 8])
    sch.rfactor(r1, 1)
    x = rng.standard_normal((8, 64), dtype=np.float32)
    np.testing.assert_allclose(kiln.build(sch, TARGET)(x), x.sum(axis=1), rtol=1e-5)
    assert "S_rf" in str(sch.mod)


def test_compute_inline_and_reverse_compute_inline(rng):
    # A reduction's consumer cannot be inlined into it: it moves under its loops.
    f = matmul_silu_func()
    sch = kiln.Schedule(f)
    with pytest.raises(kiln.NotDataParallelError):
        sch.reverse_compute_inline(sch.get_block("Z"))
    sch.reverse_compute_at(sch.get_block("Z"), sch.get_loops(sch.get_block("Y"))[0])
    x = rng.standard_normal((32, 16), dtype=np.float32)
    w = rng.standard_normal((16, 24), dtype=np.float32)
    np.testing.assert_allclose(kiln.build(sch, TARGET)(x, w), silu(x @ w), rtol=1e-5, atol=1e-5)

    A = te.placeholder((16,), "float32", name="A")
    B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((16,), lambda i: B[i] + 1.0, name="C")
    a = rng.standard_normal(16, dtype=np.float32)
    sch = kiln.Schedule(te.create_prim_func([A, C]))
    sch.compute_inline(sch.get_block("B"))
    assert "T.block(\"B\")" not in str(sch.mod)
    np.testing.assert_allclose(kiln.build(sch, TARGET)(a), a * 2 + 1, rtol=1e-6)
    sch = kiln.Schedule(te.create_prim_func([A, C]))
    sch.reverse_compute_inline(sch.get_block("C"))
    assert "T.block(\"C\")" not in str(sch.mod)
    np.testing.assert_allclose(kiln.build(sch, TARGET)(a), a * 2 + 1, rtol=1e-6)


def test_set_scope_storage_align_transform_layout_compute_location(rng):
    A = te.placeholder((16, 16), "float32", name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((16, 16), lambda i, j: B[j, i] + 1.0, name="C")
    f = te.create_prim_func([A, C])
    a = rng.standard_normal((16, 16), dtype=np.float32)
    want = (a * 2).T + 1

    sch = kiln.Schedule(f)
    b = sch.get_block("B")
    sch.storage_align(b, 0, 0, 16, 1)
    sch.set_scope(b, 0, "global")
    np.testing.assert_allclose(kiln.build(sch, TARGET)(a), want, rtol=1e-6)

    sch = kiln.Schedule(f)
    sch.transform_layout(sch.get_block("C"), "read", 0, "lambda i, j: (j, i)")
    np.testing.assert_allclose(kiln.build(sch, TARGET)(a), want, rtol=1e-6)

    sch = kiln.Schedule(f, seed=5)
    b = sch.get_block("B")
    loc = sch.sample_compute_location(b)
    sch.compute_at(b, loc)
    np.testing.assert_allclose(kiln.build(sch, TARGET)(a), want, rtol=1e-6)


def test_bind_is_recorded_and_refused_for_a_cpu():
    sch = kiln.Schedule(matmul_func())
    i, j, k = sch.get_loops(sch.get_block("C"))
    sch.bind(i, "blockIdx.x")
    assert "blockIdx.x" in str(sch.mod)
    with pytest.raises(kiln.KilnError, match="(?i)thread|gpu"):
        kiln.build(sch, TARGET)


def test_a_refused_primitive_raises_its_class_and_changes_nothing():
    sch = kiln.Schedule(matmul_func())
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    before, trace_before = str(sch.mod), sch.trace
    with pytest.raises(kiln.FactorError) as e:
        sch.split(j, [2, 5])  # covers 10 of 24
    assert isinstance(e.value, kiln.ScheduleError) and isinstance(e.value, kiln.KilnError)
    assert e.value.kind == "FactorError" and e.value.primitive == "split"
    assert str(sch.mod) == before and sch.trace == trace_before
    with pytest.raises(kiln.NotFoundError):
        sch.get_block("nope")
    with pytest.raises(kiln.ScheduleError) as e:
        sch.vectorize(k)  # a reduction loop
    assert e.value.kind != "FactorError"


def test_a_trace_that_does_not_fit_is_a_trace_error():
    sch = kiln.Schedule(matmul_func())
    _, j, _ = sch.get_loops(sch.get_block("C"))
    sch.split(j, [None, 8])
    with pytest.raises(kiln.TraceError) as e:
        kiln.Schedule.from_trace(matmul_silu_func(), sch.trace)  # no block C there
    assert e.value.instruction >= 0
    with pytest.raises(kiln.KilnError):
        kiln.Schedule.from_trace(matmul_func(), "{not json")
