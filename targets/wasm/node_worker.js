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
// measure_kernel does (kiln_wasm.js's measure) and the reply carries the
// times. A reply: a JSON line
// ({"ms_per_run": [...], "number": N} or {"error": MESSAGE}), then bytes.
'use strict';
const fs = require('fs');
const path = require('path');
const kiln = require(path.join(__dirname, 'kiln_wasm.js'));

const FD = 3;

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

// One instance per module file: a candidate's artifact, loaded once for its
// checked run and its timing (and its packs' kernels); the previous one is
// dropped with its memory and its threads.
let loaded = { path: null, module: null };
function moduleAt(file) {
  if (loaded.path !== file) {
    if (loaded.module) loaded.module.close();
    loaded = { path: file, module: kiln.loadSync(fs.readFileSync(file)) };
  }
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
    if (req.timing) {
      const t = kiln.measure(() => m.call(req.kernel, ptrs), req.timing);
      return [Buffer.from(JSON.stringify(t) + '\n')];
    }
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
