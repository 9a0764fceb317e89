"""kiln.onnx: a model from an .onnx file, compiled and run on numpy and torch
inputs, checked against kiln's reference executor and PyTorch; tuned."""
import numpy as np
import pytest

import kiln

from conftest import TARGET

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def small_cnn(path, rng):
    """Conv 3x3 (3 -> 8, pad 1) + bias, Relu, global average pool, flatten, Gemm -> 5."""
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
    b = rng.standard_normal(8).astype(np.float32)
    w2 = rng.standard_normal((5, 8)).astype(np.float32)
    b2 = rng.standard_normal(5).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "w2", "b2"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(a, n) for a, n in [(w, "w"), (b, "b"), (w2, "w2"), (b2, "b2")]],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, str(path))
    return w, b, w2, b2


@pytest.fixture
def model_path(tmp_path, rng):
    path = tmp_path / "small_cnn.onnx"
    weights = small_cnn(path, rng)
    return path, weights


def test_load_describes_the_model(model_path):
    path, _ = model_path
    m = kiln.onnx.load(path, target=TARGET)
    assert m.inputs == [{"name": "x", "dtype": "float32", "shape": (1, 3, 10, 10)}]
    assert m.outputs[0]["shape"] == (1, 5)
    assert m.tasks and all(t["key"].startswith("v1-") and t["weight"] >= 1 for t in m.tasks)
    assert any("Conv" in t["name"] for t in m.tasks)
    assert isinstance(m.tasks[0]["func"], kiln.PrimFunc)


def test_compiled_matches_reference_and_torch(model_path, rng):
    path, (w, b, w2, b2) = model_path
    m = kiln.onnx.load(path, target=TARGET)
    run = m.compile()
    x = rng.standard_normal((1, 3, 10, 10)).astype(np.float32)
    (y,) = run(x)
    (want,) = m.reference(x)
    assert y.shape == (1, 5) and y.dtype == np.float32
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    torch = pytest.importorskip("torch")
    t = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1)
    t = torch.relu(t).mean(dim=(2, 3)) @ torch.from_numpy(w2).T + torch.from_numpy(b2)
    np.testing.assert_allclose(y, t.numpy(), rtol=1e-4, atol=1e-5)
    (y_torch_in,) = run(torch.from_numpy(x))  # torch tensors in, numpy out
    np.testing.assert_array_equal(y_torch_in, y)


def test_compile_writes_where_asked(model_path, tmp_path):
    path, _ = model_path
    out = tmp_path / "compiled"
    run = kiln.onnx.load(path, target=TARGET).compile(path=out)
    assert (out / "kernels.so").exists() and (out / "model.json").exists() and run.path == str(out)


def test_tune_then_compile_uses_the_records(model_path, tmp_path, rng):
    path, _ = model_path
    db = str(tmp_path / "model.db")
    m = kiln.onnx.load(path, target=TARGET)
    events = []
    summary = m.tune(db=db, trials_per_task=8, batch_size=8, progress=events.append, final_top=0)
    assert events and events[-1]["tasks"] == len(m.tasks)
    assert [t["key"] for t in summary["tasks"]] == [t["key"] for t in m.tasks]
    # each task at its cap, or with every design of its (small) space measured
    assert all(1 <= t["trials"] <= 8 for t in summary["tasks"]) and summary["trials_now"] >= 8
    assert summary["latency_ms"] > 0 and not summary["stopped"]
    store = kiln.Database(db)
    assert all(store.best(t["key"], TARGET) is not None for t in m.tasks)
    x = rng.standard_normal((1, 3, 10, 10)).astype(np.float32)
    (y,) = m.compile(db=db)(x)
    np.testing.assert_allclose(y, m.reference(x)[0], rtol=1e-4, atol=1e-5)
    # each task's best records tried in the model: still the model's outputs
    (y,) = m.compile(db=db, pick_in_model=3)(x)
    np.testing.assert_allclose(y, m.reference(x)[0], rtol=1e-4, atol=1e-5)
    # the pick chooses among a database's records: without one, an error, as `kiln compile` gives
    with pytest.raises(kiln.KilnError, match="give a database"):
        m.compile(pick_in_model=3)


def test_bad_models_are_named(tmp_path, model_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(kiln.KilnError, match="bad.onnx"):
        kiln.onnx.load(bad)
    path, _ = model_path
    run = kiln.onnx.load(path, target=TARGET).compile()
    with pytest.raises(TypeError, match="shape"):
        run(np.zeros((1, 3, 9, 10), np.float32))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        run()
