"""kiln.tune_op: tune one operator's schedule into a tuning database, as
``kiln tune-op`` does (the same driver, options and measurement)."""
import sys

from . import _kiln
from ._progress import describe_op, follow, make_bar


def _target_string(target):
    if target is None:
        return str(_kiln.Target.host())
    return str(target if isinstance(target, _kiln.Target) else _kiln.Target(target))


def tune_op(workload, target=None, *, db, trials=64, runner="local", token=None, tls_ca=None, progress=True,
            **options):
    """Tunes a workload until the database holds ``trials`` trials of it on the
    target (earlier runs count), and returns the best record, or None when no
    candidate ran correctly.

    workload: a PrimFunc (te.create_prim_func), a workload string
    ("matmul:M=512,N=512,K=512"), or a workload key the database holds.
    target: a kiln.Target or a target string (default: this host).
    db: a SQLite file (created if missing) or a postgresql:// URL.
    runner: "local" (a child process) or a runner's address (``kiln runner``).
    progress: True (tqdm when installed, else a line per round), "text", "tqdm", False,
    or a function called with each round's progress (a dict: trials, trials_total,
    best_gflops, errors, elapsed_s, eta_s, ...).
    options: the rest of search::TuneOptions (docs/tuner.md): time_budget_s,
    batch_size, seed, strategy, cost_model, final_top, ...

    Ctrl-C stops after the batch in flight; every measured batch is kept, and
    a later call resumes::

        rec = kiln.tune_op(f, "llvm -num-cores=2", db="tuning.db", trials=64)
        kernel = kiln.build(f, "llvm -num-cores=2", db="tuning.db")
    """
    if int(trials) <= 0:
        raise ValueError(f"trials is the total the workload should have, a positive number, not {trials}")
    opts = dict(options)
    opts["trials"] = int(trials)
    opts["target"] = _target_string(target)
    job = _kiln._tune_op(workload, str(db), opts, runner, token or "", tls_ca or "")
    bar = make_bar(progress, trials, "trials", describe_op, lambda e: e["trials"])
    result = follow(job, bar)
    if result["stopped"]:
        print(f"kiln: stopped; every measured batch is in {db}", file=sys.stderr)
    if result["internal_errors"]:
        raise _kiln.InternalError(
            f"{result['internal_errors']} candidates met a compiler bug (stored in {db} as 'internal'); "
            f"the first: {result['first_internal_error']}"
        )
    if "best_record" not in result:
        return None
    return _kiln.Database(str(db)).best(result["workload_key"], result["target"])
