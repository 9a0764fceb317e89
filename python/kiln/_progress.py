"""Following a tuning run from Python: a progress bar (tqdm when installed,
a line per round otherwise) and Ctrl-C, which stops the run after the batch
in flight and keeps everything measured, as ``kiln tune-op`` does."""
import sys


def _clock(seconds):
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class _TextBar:
    """A line per round on stderr: trials, best so far, elapsed, ETA."""

    def __init__(self, describe):
        self._describe = describe

    def update(self, event):
        print(self._describe(event), file=sys.stderr, flush=True)

    def note(self, text):
        print(f"kiln: {text}", file=sys.stderr, flush=True)

    def close(self):
        pass


class _TqdmBar:
    def __init__(self, tqdm, total, unit, describe, count):
        self._bar = tqdm(total=total, unit=unit, file=sys.stderr, dynamic_ncols=True)
        self._count = count
        self._describe = describe

    def update(self, event):
        done = self._count(event)
        if event.get("trials_total"):
            self._bar.total = event["trials_total"]
        self._bar.update(max(0, done - self._bar.n))
        self._bar.set_postfix_str(self._describe(event), refresh=True)

    def note(self, text):
        self._bar.write(f"kiln: {text}", file=sys.stderr)

    def close(self):
        self._bar.close()


class _Silent:
    def update(self, event):
        pass

    def note(self, text):
        pass

    def close(self):
        pass


class _Callback(_Silent):
    """Each progress event (a dict) handed to a function of the caller's."""

    def __init__(self, fn):
        self._fn = fn

    def update(self, event):
        self._fn(event)


def make_bar(progress, total, unit, describe, count):
    """progress: True (tqdm if installed, else text), "tqdm", "text", False,
    or a function called with each progress event (a dict)."""
    if progress is False or progress is None:
        return _Silent()
    if callable(progress):
        return _Callback(progress)
    if progress not in (True, "tqdm", "text"):
        raise ValueError(f"progress is True, False, 'tqdm' or 'text', not {progress!r}")
    if progress in (True, "tqdm"):
        try:
            from tqdm.auto import tqdm
        except ImportError:
            if progress == "tqdm":
                raise
        else:
            return _TqdmBar(tqdm, total, unit, describe, count)
    return _TextBar(describe)


def follow(job, bar, poll_s=0.1):
    """Shows the job's progress until it ends and returns its result. The first
    Ctrl-C asks the job to stop after the batch in flight (what was measured
    stays in the database); the job's own errors are raised."""
    stopping = False
    try:
        while True:
            try:
                done = job.wait(poll_s)
                for event in job.poll():
                    bar.update(event)
                if done:
                    break
            except KeyboardInterrupt:
                if stopping:
                    continue
                stopping = True
                job.stop()
                bar.note("stopping after the batch in flight; every measured batch is kept")
        return job.result()
    finally:
        bar.close()


def describe_op(event):
    if event.get("final_measured"):
        return f"final measurement: {event['final_measured']} of the best timed again, best {event['best_gflops']:.1f} GFLOP/s"
    return (
        f"round {event['round']}: {event['trials']}/{event['trials_total']} trials, "
        f"best {event['best_gflops']:.1f} GFLOP/s, {event['errors']} errors, "
        f"elapsed {_clock(event['elapsed_s'])}, ETA {_clock(event['eta_s'])}"
    )


def describe_model(event):
    return (
        f"round {event['round']}: task {event['task']} ({event['task_name']}) {event['task_trials']} trials; "
        f"{event['tasks_tuned']}/{event['tasks']} tasks tuned, {event['trials_now']} trials; "
        f"model {event['latency_ms']:.3f} ms (untuned {event['untuned_latency_ms']:.3f} ms); "
        f"elapsed {_clock(event['elapsed_s'])}, ETA {_clock(event['eta_s'])}"
    )


__all__ = ["make_bar", "follow", "describe_op", "describe_model"]
