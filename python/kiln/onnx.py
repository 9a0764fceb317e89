"""ONNX models: load, tune, compile, run — ``kiln tune``, ``kiln compile`` and
``kiln run`` from Python::

    m = kiln.onnx.load("resnet18.onnx", target="llvm -num-cores=2")
    m.tune(db="tuning.db", trials_per_task=200)
    run = m.compile(db="tuning.db")
    (logits,) = run(images)                     # numpy arrays out
    (want,) = m.reference(images)               # kiln's reference executor
"""
import os
import tempfile

from . import _kiln
from ._progress import describe_model, follow, make_bar


def _shapes_text(input_shapes):
    if input_shapes is None:
        return ""
    if isinstance(input_shapes, str):
        return input_shapes
    return " ".join(f"{name}:[{','.join(str(int(d)) for d in shape)}]" for name, shape in input_shapes.items())


def load(path, *, target=None, input_shapes=None, layout="nchwc"):
    """Reads an .onnx file, runs the graph passes for the target, fuses the
    operators and extracts the tasks the tuner tunes.

    input_shapes: shapes for inputs with dynamic dimensions, {"input": (1, 3, 224, 224)}.
    layout: "nchwc" (convolutions in blocked channels, the default) or "nchw".
    """
    if target is not None and not isinstance(target, _kiln.Target):
        target = _kiln.Target(target)
    return Model(_kiln.onnx_impl.Model(os.fspath(path), _shapes_text(input_shapes), layout, target))


class _Signature:
    """A model's inputs and outputs, from its implementation's."""

    @property
    def inputs(self):
        """The inputs, in the model's order: name, dtype, shape."""
        return self._impl.inputs

    @property
    def outputs(self):
        """The outputs, in the model's order: name, dtype, shape."""
        return self._impl.outputs


class Model(_Signature):
    """A model prepared for one target: its tasks, its tuning, its compilation."""

    def __init__(self, impl):
        self._impl = impl

    @property
    def target(self):
        return self._impl.target

    @property
    def tasks(self):
        """The distinct fused subgraphs the tuner tunes: name, key, weight (how
        many groups run it), flops, signature, func (a PrimFunc)."""
        return self._impl.tasks

    def tune(self, db, *, trials_per_task=_kiln.MODEL_TRIALS_PER_TASK, trials=0, policy="gradient", warm_weights=False, progress=True,
             **options):
        """Tunes the tasks into the database, a batch at a time where the model's
        latency is expected to fall most, as ``kiln tune`` does; returns a summary
        (per task: trials, untuned and best ms; the model's estimated latency).

        trials_per_task: a task's cap, earlier runs included (0: none).
        trials: this run's trials across tasks (0: until the caps or the time).
        options: search::TuneOptions fields (time_budget_s, batch_size, seed, ...).
        Ctrl-C stops after the batch in flight, keeping what was measured."""
        if trials <= 0 and trials_per_task <= 0 and not options.get("time_budget_s"):
            raise ValueError("give trials_per_task, trials or time_budget_s")
        opts = dict(options)
        opts["target"] = str(self.target)
        job = self._impl._tune(os.fspath(db), opts, int(trials), int(trials_per_task), policy, warm_weights)
        total = trials if trials > 0 else trials_per_task * len(self.tasks)
        bar = make_bar(progress, total, "trials", describe_model, lambda e: e["trials_now"])
        result = follow(job, bar)
        if result["internal_errors"]:
            raise _kiln.InternalError(
                f"{result['internal_errors']} candidates met a compiler bug (stored in {db} as 'internal'); "
                f"the first: {result['first_internal_error']}"
            )
        return result

    def compile(self, db=None, *, path=None, pick_in_model=1):
        """Compiles every task as the database's best record schedules it (its
        default program where there is none) and loads the result. path: where
        to write it (the directory ``kiln run`` takes); default: a temporary one
        that lives as long as the module. pick_in_model=K (with db; without
        one, KilnError): each task's K best records run in the model on this
        machine, and the one fastest there compiled (``kiln compile
        --pick-in-model``)."""
        tmp = None
        if path is None:
            tmp = tempfile.TemporaryDirectory(prefix="kiln-model-")
            path = tmp.name
        self._impl._compile(os.fspath(path), os.fspath(db) if db else "", int(pick_in_model))
        return CompiledModule(os.fspath(path), _keep=tmp)

    def reference(self, *inputs):
        """The model's outputs by kiln's reference executor (slow, obviously right)."""
        return self._impl.reference(*inputs)


class CompiledModule(_Signature):
    """A compiled model, called on arrays (numpy, torch, anything with
    __dlpack__); returns its outputs as numpy arrays, in the model's order."""

    def __init__(self, path, _keep=None):
        self._impl = _kiln.onnx_impl.CompiledModel(os.fspath(path))
        self._keep = _keep
        self.path = os.fspath(path)

    def __call__(self, *inputs):
        return self._impl(*inputs)
