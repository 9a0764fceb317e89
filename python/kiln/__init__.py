"""kiln: an auto-tuning tensor compiler.

Write a computation once, schedule it by hand or let the tuner search its
schedules, and run the kernel on numpy arrays, torch tensors or anything with
``__dlpack__``::

    import numpy as np
    import kiln
    from kiln import te

    A = te.placeholder((64, 64), "float32", name="A")
    B = te.placeholder((64, 64), "float32", name="B")
    k = te.reduce_axis((0, 64), name="k")
    C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    f = te.create_prim_func([A, B, C], name="matmul")

    kernel = kiln.build(f, "llvm -num-cores=2")
    a, b = np.random.rand(64, 64).astype("float32"), np.random.rand(64, 64).astype("float32")
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-5)

The compiler (the IR, the schedules, the search, the cost model, the code
generator) is kiln's C++ library; this package binds it (docs/python.md).
"""
import os as _os


def _kiln_executable():
    """The kiln executable the tuner starts its runner and build workers from."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    for candidate in (
        _os.path.join(here, "bin", "kiln"),  # installed by pip
        _os.path.join(here, _os.pardir, _os.pardir, "bin", "kiln"),  # the build tree: build/python/kiln
    ):
        if _os.access(candidate, _os.X_OK):
            return _os.path.normpath(candidate)
    return None


if not _os.environ.get("KILN_BINARY") and _kiln_executable():
    _os.environ["KILN_BINARY"] = _kiln_executable()

from . import _kiln  # noqa: E402
from ._kiln import (  # noqa: E402,F401
    BlockRV,
    Database,
    Expr,
    ExprRV,
    InternalError,
    IterVar,
    Kernel,
    KilnError,
    LoopRV,
    PrimFunc,
    Record,
    Schedule,
    ScheduleError,
    Target,
    TraceError,
    Var,
    build,
    reference,
)

# Every kind of schedule error as its own class: except kiln.FactorError.
for _name in dir(_kiln):
    if _name.endswith("Error"):
        globals()[_name] = getattr(_kiln, _name)

from . import farm, onnx, te  # noqa: E402,F401
from .onnx import CompiledModule, Model  # noqa: E402,F401
from .tune import tune_op  # noqa: E402,F401

__version__ = _kiln.__version__


def workload(spec: str) -> PrimFunc:
    """The unscheduled function of a workload string of kiln's operator library
    (docs/workloads.md), as ``kiln tune-op`` takes it::

        f = kiln.workload("matmul:M=512,N=512,K=512")
    """
    return _kiln._workload(spec)
