"""A tuning database's build times: the milliseconds each candidate spent in
the builder (build_ms, from request to reply), as percentiles. bench/tune and
bench/models put them in their summaries (docs/measurement.md, "Build
time": the 99th percentile is to stay under 5 s)."""
import sqlite3


def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(p * len(v)))]


def build_ms_summary(db_paths):
    """{count, p50, p90, p99, max, over_5s, build_timeouts} over every
    candidate the databases hold (refused candidates included: their build
    time is the time it took to refuse them)."""
    ms, timeouts = [], 0
    for path in db_paths:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as c:
            for build_ms, kind in c.execute("select build_ms, error_kind from records"):
                ms.append(build_ms)
                timeouts += kind == "build_timeout"
    return {"count": len(ms), "p50": percentile(ms, 0.5), "p90": percentile(ms, 0.9), "p99": percentile(ms, 0.99),
            "max": max(ms) if ms else None, "over_5s": sum(m > 5000 for m in ms), "build_timeouts": timeouts}
