// The run worker's WebAssembly engine: a Node.js process that a kiln run
// worker starts (rpc/worker/wasm_kernel.h) to load, run and time candidates
// in V8, the runtime they are tuned for. It serves frames on fd 3 (a
// 4-byte little-endian length, then the payload: rpc/process/frame.h),
// says hello first, and exits when its parent closes the socket.
//
// A request: a JSON line, then the arguments' bytes one after the other:
//   {"module": PATH, "kernel": NAME, "args": [NBYTES, ...],
//    "timing": null | {"warmup", "warmup_ms", "number", "repeat", "min_repeat_ms"}}
// Without timing the kernel runs once and the reply carries every argument
// back (what it wrote); with timing it runs as targets/runtime/timing.h's
// measure_kernel does and the reply carries the times. A reply: a JSON line
// ({"ms_per_run": [...], "number": N} or {"error": MESSAGE}), then bytes.
'use strict';
const fs = require('fs');
const path = require('path');
const kiln = require(path.join(__dirname, 'kiln_wasm.js'));

const FD = 3;
const MAX_NUMBER = 1 << 24;  // timing.cpp's kMaxNumber
const RAISE_MARGIN = 1.1;    // and kRaiseMargin

function readExact(n) {
  const buf = Buffer.allocUnsafe(n);
  let off = 0;
  while (off < n) {
    let got;
    try {
      got = fs.readSync(FD, buf, off, n - off, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      if (e.code === 'EOF') return null;
      throw e;
    }
    if (got === 0) return null;
    off += got;
  }
  return buf;
}

function writeAll(buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(FD, buf, off, buf.length - off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

function writeFrame(payload) {
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32LE(payload.length, 0);
  writeAll(Buffer.concat([head, payload]));
}

// WorkerHello (rpc/proto/worker.proto) by hand: role = 1 (string), pid = 2.
function hello() {
  const role = Buffer.from('wasm');
  const varint = [];
  for (let v = process.pid; ; v >>>= 7) {
    if (v < 128) { varint.push(v); break; }
    varint.push((v & 127) | 128);
  }
  return Buffer.concat([Buffer.from([0x0a, role.length]), role, Buffer.from([0x10, ...varint])]);
}

function now() { return Number(process.hrtime.bigint()) / 1e6; }  // ms

function timeRuns(m, kernel, ptrs, number) {
  const t0 = now();
  for (let i = 0; i < number; ++i) m.call(kernel, ptrs);
  return now() - t0;
}

function measure(m, kernel, ptrs, o) {
  for (let i = 0; i < o.warmup; ++i) m.call(kernel, ptrs);
  if (o.warmup_ms > 0) for (const until = now() + o.warmup_ms; now() < until;) m.call(kernel, ptrs);
  let number = Math.max(1, o.number);
  if (o.min_repeat_ms > 0) {
    for (;;) {
      const ms = timeRuns(m, kernel, ptrs, number);
      if (ms >= o.min_repeat_ms || number >= MAX_NUMBER) break;
      const scale = ms > 0 ? (o.min_repeat_ms * RAISE_MARGIN) / ms : 2;
      number = Math.min(MAX_NUMBER, Math.ceil(number * Math.max(scale, 2)));
    }
  }
  const ms_per_run = [];
  for (let r = 0; r < Math.max(1, o.repeat); ++r) ms_per_run.push(timeRuns(m, kernel, ptrs, number) / number);
  return { ms_per_run, number };
}

// One instance per module file: a candidate's artifact, loaded once for its
// checked run and its timing (and its packs' kernels); the previous one is
// dropped with its memory.
let loaded = { path: null, module: null };
function moduleAt(file) {
  if (loaded.path !== file) loaded = { path: file, module: kiln.loadSync(fs.readFileSync(file)) };
  return loaded.module;
}

function handle(frame) {
  const nl = frame.indexOf(10);
  const req = JSON.parse(frame.subarray(0, nl).toString());
  let data = frame.subarray(nl + 1);
  const m = moduleAt(req.module);
  const ptrs = [];
  try {
    for (const n of req.args) {
      const p = m.alloc(Math.max(n, 1));
      m.bytes(p, n).set(data.subarray(0, n));
      data = data.subarray(n);
      ptrs.push(p);
    }
    if (req.timing) return [Buffer.from(JSON.stringify(measure(m, req.kernel, ptrs, req.timing)) + '\n')];
    m.call(req.kernel, ptrs);
    const out = [Buffer.from('{}\n')];
    req.args.forEach((n, i) => out.push(Buffer.from(m.bytes(ptrs[i], n))));
    return out;
  } finally {
    for (const p of ptrs) m.free(p);
  }
}

// No engine outlives its run worker: a thread of its own waits on the
// lifeline the parent holds (rpc/process/child_process.h) and kills the
// process when it closes, even while a kernel spins in the main thread.
const lifeline = process.argv.find((a) => a.startsWith('--lifeline-fd='));
if (lifeline) {
  const { Worker } = require('worker_threads');
  const watch = `const fs = require('fs'); const b = Buffer.alloc(1);
    try { while (fs.readSync(${Number(lifeline.split('=')[1])}, b, 0, 1, null) > 0) {} } catch (e) {}
    process.kill(process.pid, 'SIGKILL');`;
  new Worker(watch, { eval: true }).unref();
}

writeFrame(hello());
for (;;) {
  const head = readExact(4);
  if (!head) break;
  const frame = readExact(head.readUInt32LE(0));
  if (!frame) break;
  let reply;
  try {
    reply = Buffer.concat(handle(frame));
  } catch (e) {
    reply = Buffer.from(JSON.stringify({ error: String(e && e.message ? e.message : e) }) + '\n');
  }
  writeFrame(reply);
}
