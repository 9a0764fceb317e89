// Times bench/wasm/matmul.c's module in Node.js as kiln's engine times its
// kernels (targets/wasm/node_worker.js: warm for a quarter of a second, then
// repeats of at least 100 ms each), and prints {"ms": [...], "gflops": X}.
//
//   node time_c_matmul.js matmul.wasm M N K REPEAT
'use strict';
const fs = require('fs');
const [file, M, N, K, REPEAT] = process.argv.slice(2);
const m = Number(M), n = Number(N), k = Number(K), repeat = Number(REPEAT || 10);
const inst = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(file)), {});
const mem = inst.exports.memory;
const base = Math.ceil(inst.exports.__heap_base.value / 64) * 64;
const bytes = 4 * (m * k + k * n + m * n);
const need = base + bytes + 192 - mem.buffer.byteLength;
if (need > 0) mem.grow(Math.ceil(need / 65536));
const a = base, b = a + Math.ceil((4 * m * k) / 64) * 64, c = b + Math.ceil((4 * k * n) / 64) * 64;
const fa = new Float32Array(mem.buffer, a, m * k), fb = new Float32Array(mem.buffer, b, k * n);
for (let i = 0; i < fa.length; ++i) fa[i] = Math.random() * 2 - 1;
for (let i = 0; i < fb.length; ++i) fb[i] = Math.random() * 2 - 1;
const run = () => inst.exports.matmul(a, b, c, m, n, k);
const now = () => Number(process.hrtime.bigint()) / 1e6;
for (const until = now() + 250; now() < until;) run();
let number = 1;
for (;;) {
  const t0 = now();
  for (let i = 0; i < number; ++i) run();
  const ms = now() - t0;
  if (ms >= 100) break;
  number = Math.ceil(number * Math.max(2, ms > 0 ? (100 * 1.1) / ms : 2));
}
const ms = [];
for (let r = 0; r < repeat; ++r) {
  const t0 = now();
  for (let i = 0; i < number; ++i) run();
  ms.push((now() - t0) / number);
}
const sorted = [...ms].sort((x, y) => x - y);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(JSON.stringify({ ms, number, median_ms: median, gflops: (2 * m * n * k) / (median * 1e6) }));
