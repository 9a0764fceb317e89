"""kiln.farm.Client against a real farm on this machine (scripts/local-farm:
PostgreSQL, kilnd and two runners): status, a job submitted from Python
tuned to its end, its log, and errors named."""
import os
import subprocess

import pytest

import kiln

from conftest import TARGET, matmul_func

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


@pytest.fixture(scope="module")
def farm(tmp_path_factory, request):
    state = str(tmp_path_factory.mktemp("farm"))
    env = dict(os.environ, KILN_BIN=os.path.dirname(os.environ["KILN_BINARY"]))
    # Under the sanitizers the interpreter runs with their runtimes preloaded
    # (tests/CMakeLists.txt); PostgreSQL must not inherit that, and kilnd
    # and the runners carry their own.
    env.pop("LD_PRELOAD", None)
    script = os.path.join(ROOT, "scripts", "local-farm")
    # stopped whatever happens, a start that failed halfway included
    request.addfinalizer(lambda: subprocess.run([script, "stop", state], env=env, capture_output=True, timeout=60))
    return subprocess.run([script, "start", state, "0"], env=env, capture_output=True, text=True, check=True,
                          timeout=120).stdout.strip()


def test_status_submit_follow(farm):
    c = kiln.farm.Client(farm)
    status = c.status()
    assert sorted(r["device_key"] for r in status["runners"]) == ["avx2", "avx512"]
    job = c.submit([matmul_func(16, 16, 16, name="farm_mm"), "matmul:M=16,N=8,K=16"], trials=8, target=TARGET,
                   device_key="avx512", batch_size=8, final_top=0, name="from python")
    assert job["state"] in ("queued", "running") and job["name"] == "from python"
    lines, last = c.logs(job["id"], follow=True)
    assert last["state"] == "done", lines
    assert lines and all(isinstance(at, float) and isinstance(text, str) for at, text in lines)
    assert c.job(job["id"])["state"] == "done"
    assert any(j["id"] == job["id"] for j in c.jobs())


def test_errors_name_the_daemon(farm):
    with pytest.raises(kiln.KilnError, match="127.0.0.1:1"):
        kiln.farm.Client("127.0.0.1:1").status()
    with pytest.raises(kiln.KilnError):
        kiln.farm.Client(farm).job(123456)
