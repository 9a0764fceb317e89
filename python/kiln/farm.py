"""A farm's daemon, ``kilnd`` (docs/farm.md), from Python: submit tuning jobs,
follow them, see the runners::

    c = kiln.farm.Client("10.0.0.5:9300", token=os.environ["KILN_TOKEN"])
    job = c.submit([f, "matmul:M=512,N=512,K=512"], trials=200, target="llvm -mcpu=znver4 -num-cores=2")
    c.logs(job["id"], follow=True, echo=True)
"""
from . import _kiln


class Client:
    def __init__(self, address, token=None, *, tls_ca=None):
        """address: host:port of the daemon; token: a user token (``kilnd token``);
        tls_ca: the PEM file of the CA that signed the daemon's certificate."""
        self._impl = _kiln.farm_impl.Client(address, token or "", tls_ca or "")

    @property
    def address(self):
        return self._impl.address

    def submit(self, workloads, *, trials=64, target=None, name="", device_key="", priority=0, **options):
        """Queues a job tuning each workload (PrimFuncs, workload strings) for
        ``trials`` trials, earlier ones included; returns the job as a dict."""
        if isinstance(workloads, (str, _kiln.PrimFunc)):
            workloads = [workloads]
        opts = dict(options)
        opts["trials"] = int(trials)
        if target is not None:
            opts["target"] = str(target if isinstance(target, _kiln.Target) else _kiln.Target(target))
        return self._impl.submit(list(workloads), opts, name, device_key, priority)

    def job(self, job_id):
        return self._impl.job(job_id)

    def jobs(self, limit=100):
        return self._impl.jobs(limit)

    def cancel(self, job_id):
        return self._impl.cancel(job_id)

    def status(self):
        """{"runners": [...], "jobs": {state: count}}"""
        return self._impl.status()

    def logs(self, job_id, *, after=0, follow=False, echo=False):
        """The job's log lines after the ``after``-th, as (seconds, line); with
        follow, until the job ends. echo prints each as it comes. Returns
        (lines, the job as it ended or None)."""
        on_line = (lambda at, line: print(f"{at:8.1f}s  {line}", flush=True)) if echo else None
        return self._impl.logs(job_id, after, follow, on_line)
