"""Side by side: processes that each keep a model loaded and time N runs
per request (bench/kiln_model_server, and bench/models' onnxruntime and
OpenVINO servers), timed in turn in short blocks. bench/models and
bench/compare_compiled use it.

The shared hosts these benches run on change speed for seconds to minutes
at a time; blocks of a few runs, each side in turn within the block, share
a slow spell out among the sides instead of charging it to one.
"""
import json
import statistics
import subprocess
import sys
import time


class Server:
    """One side of the comparison: a process that has loaded the model and
    times N runs per request; `log` takes its stderr (None: this one's)."""

    def __init__(self, name, cmd, log):
        print("+ " + " ".join(c if len(c) < 200 else "<script>" for c in cmd), file=sys.stderr, flush=True)
        self.name = name
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
        self.ready = self.reply()

    def reply(self):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"{sys.argv[0]}: the {self.name} server exited {self.proc.wait()} (its stderr says why)")
            if line.startswith("{"):
                return json.loads(line)

    def time(self, runs, warm_ms=0):
        self.proc.stdin.write(f"{runs} {warm_ms}\n")
        self.proc.stdin.flush()
        return self.reply()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


# Between two sides' turns: long enough for the last side's idle threads to
# stop spinning (onnxruntime's and OpenVINO's pools spin for a moment after
# a run, as kiln's does), so that they do not take a core from the next.
PAUSE_S = 0.05

# Each side's untimed runs before its timed ones in a block, in ms. After
# the pause the CPU takes some milliseconds to come back to speed (its
# clock, the host's placement of the idle vCPUs): on a Zen 5 VM, a side's
# first timed runs after one untimed one were 2-5% slower than its 41st to
# 60th, and most for the fastest side, whose runs fit more of them into
# the transient (docs/onnx.md, "Warm before timing"). 50 ms of untimed
# runs is past it for every side, so each block times what a steady stream
# of inferences gets.
WARM_MS = 50


def interleave(servers, blocks, runs, warm_ms=WARM_MS):
    """`blocks` blocks; in each, every side times `runs` runs after untimed
    ones for `warm_ms` (one at least), the order rotating from block to
    block. Returns per block each side's median (ms) and, from a
    kiln_model_server side, the round trip between its threads."""
    names = list(servers)
    out = []
    for b in range(blocks):
        block = {}
        for name in names[b % len(names):] + names[:b % len(names)]:
            time.sleep(PAUSE_S)
            r = servers[name].time(runs, warm_ms)
            block[name] = statistics.median(r["ms"])
            if "thread_round_trip_ns" in r:
                block["round_trip_ns"] = r["thread_round_trip_ns"]
        out.append(block)
    return out
