"""Every example of examples/python runs, in the tutorial's order, with few
trials (the examples take the count as their argument)."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples", "python")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("examples")


@pytest.mark.parametrize(
    "script, args",
    [("01_define.py", []), ("02_schedule.py", []), ("03_tune.py", ["8"]), ("04_compare_numpy.py", []),
     ("05_onnx.py", ["4"]), ("fused_silu.py", ["8"])],
)
def test_example_runs(script, args, workdir):
    if script in ("05_onnx.py", "fused_silu.py"):
        pytest.importorskip("torch")
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], cwd=workdir, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    if script == "02_schedule.py":
        assert "refused: FactorError" in out.stdout
    if script == "04_compare_numpy.py":
        assert "numpy/kiln" in out.stdout
