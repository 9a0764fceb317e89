// Times bench/wasm/matmul.c's module in Node.js with kiln's own timer
// (targets/wasm/kiln_wasm.js's measure, as bench-op's timing: warm for a
// quarter of a second, then repeats of at least 100 ms each), and prints
// {"ms": [...], "gflops": X}.
//
//   node time_c_matmul.js matmul.wasm M N K REPEAT
'use strict';
const fs = require('fs');
const path = require('path');
const kiln = require(path.join(__dirname, '..', '..', 'targets', 'wasm', 'kiln_wasm.js'));
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
const t = kiln.measure(run, { warmup_ms: 250, number: 1, min_repeat_ms: 100, repeat });
const sorted = [...t.ms_per_run].sort((x, y) => x - y);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(JSON.stringify({ ms: t.ms_per_run, number: t.number, median_ms: median, gflops: (2 * m * n * k) / (median * 1e6) }));
