// kiln_wasm.js: loads a WebAssembly module of kiln kernels and calls them,
// in Node.js or a browser (docs/targets.md, "WebAssembly").
//
//   const kiln = require('./kiln_wasm.js');          // or <script src=...>: globalThis.kilnWasm
//   const m = kiln.loadSync(fs.readFileSync('matmul.wasm'));   // or await kiln.load(bytes)
//   const a = m.alloc(4 * 64 * 64);                  // byte offsets in the module's memory
//   m.f32(a, 64 * 64).set(data);
//   m.call('matmul', [a, b, c]);                     // throws unless the kernel returns 0
//
// The module's ABI (what kiln's wasm32 target links, targets/codegen/llvm/
// wasm_runtime.h): each kernel is an export `int32 name(i32 args, i32 rt)`
// taking the address of an array of i32 argument addresses and the address
// of the exported `kiln_runtime_api`; `name__kiln_signature` is the address
// of a C string "A:float32:1024;B:int8:-1". The memory is the module's own
// (exported as `memory`); everything past `__heap_base` belongs to this
// loader's allocator, which the kernels reach for scratch through the
// imports kiln_host_alloc / kiln_host_free. What a kernel calls that
// WebAssembly has no instruction for (libm, memcpy) is imported from "env"
// and given here.
'use strict';
(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.kilnWasm = factory();
})(typeof globalThis !== 'undefined' ? globalThis : this, function () {
  const PAGE = 65536;
  const f32 = Math.fround;

  // Relaxed SIMD (a module built with +relaxed-simd: its multiply-adds)
  // shipped in V8 11.4; Node.js 18 and 20 run it behind this flag, which
  // must be set before a module is compiled.
  if (typeof require === 'function') {
    try {
      require('v8').setFlagsFromString('--experimental-wasm-relaxed-simd');
    } catch (e) {
      // Not Node.js.
    }
  }

  // libm by the names LLVM calls: float (…f) and double forms.
  function libm() {
    const one = { exp: Math.exp, log: Math.log, log2: Math.log2, log10: Math.log10, log1p: Math.log1p,
                  expm1: Math.expm1, sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin, acos: Math.acos,
                  atan: Math.atan, sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh, asinh: Math.asinh,
                  acosh: Math.acosh, atanh: Math.atanh, cbrt: Math.cbrt, exp2: (x) => Math.pow(2, x) };
    const two = { pow: Math.pow, atan2: Math.atan2, fmod: (x, y) => x % y, hypot: Math.hypot };
    const env = {};
    for (const [name, f] of Object.entries(one)) {
      env[name] = f;
      env[name + 'f'] = (x) => f32(f(x));
    }
    for (const [name, f] of Object.entries(two)) {
      env[name] = f;
      env[name + 'f'] = (x, y) => f32(f(x, y));
    }
    // A float product is exact in double, so one rounding to float after
    // the add gives fmaf but for rare double-rounding ties; fma of doubles
    // is not fused here.
    env.fmaf = (a, b, c) => f32(a * b + c);
    env.fma = (a, b, c) => a * b + c;
    env.__extendhfsf2 = halfToFloat;
    env.__truncsfhf2 = floatToHalf;
    env.__truncdfhf2 = (x) => floatToHalf(f32(x));  // through float: ties may round twice
    return env;
  }

  // float16 as LLVM's WebAssembly back end converts it, through compiler-rt's
  // names: widening is exact, narrowing rounds to nearest even, as kiln's
  // other targets and its interpreter do.
  const f32buf = new Float32Array(1);
  const u32buf = new Uint32Array(f32buf.buffer);
  function halfToFloat(h) {
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const m = h & 0x3ff;
    if (e === 0) return sign * m * Math.pow(2, -24);
    if (e === 31) return m ? NaN : sign * Infinity;
    return sign * (1 + m / 1024) * Math.pow(2, e - 15);
  }
  function floatToHalf(x) {
    f32buf[0] = x;
    const b = u32buf[0];
    const sign = (b >>> 16) & 0x8000;
    const e = (b >>> 23) & 0xff;
    let m = b & 0x7fffff;
    if (e === 255) return sign | 0x7c00 | (m ? 0x200 : 0);
    let he = e - 112;  // the exponent rebiased from 127 to 15
    if (he >= 31) return sign | 0x7c00;
    if (he <= 0) {  // a subnormal half (or zero)
      if (he < -10) return sign;
      m |= 0x800000;
      const shift = 14 - he;
      let hm = m >>> shift;
      const rest = m & ((1 << shift) - 1);
      const half = 1 << (shift - 1);
      if (rest > half || (rest === half && hm & 1)) ++hm;
      return sign | hm;
    }
    let hm = m >>> 13;
    const rest = m & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && hm & 1)) {
      if (++hm === 0x400) {
        hm = 0;
        if (++he === 31) return sign | 0x7c00;
      }
    }
    return sign | (he << 10) | hm;
  }

  // The heap past __heap_base, its bookkeeping in the module's memory so
  // that every thread of a threaded module shares it (a spin lock around
  // each change): a bump pointer, and freed blocks kept by size in a table
  // of lists for the next request of that size (a kernel asks for the same
  // scratch call after call). Blocks are multiples of 64 bytes after a
  // 64-byte header holding the size; the memory grows by whole pages.
  const SLOTS = 256;
  const META = 4096;  // lock, top, SLOTS (size, head) pairs
  class Heap {
    constructor(memory, base, fresh) {
      this.memory = memory;
      this.base = Math.ceil(base / 64) * 64;
      if (fresh) {
        this.ensure(this.base + META);
        const w = this.words();
        w.fill(0, this.base / 4, (this.base + META) / 4);
        w[this.base / 4 + 1] = this.base + META;
      }
    }
    words() { return new Int32Array(this.memory.buffer); }
    ensure(end) {
      const have = this.memory.buffer.byteLength;
      if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    }
    locked(f) {
      const lock = this.base / 4;
      for (let w = this.words(); Atomics.compareExchange(w, lock, 0, 1) !== 0;) {}
      try {
        return f();
      } finally {
        Atomics.store(this.words(), lock, 0);
      }
    }
    // The table slot of `size`: its word index, or -1 when the table is full.
    slot(w, size, insert) {
      const table = this.base / 4 + 2;
      for (let i = 0, h = (size / 64) % SLOTS; i < SLOTS; ++i, h = (h + 1) % SLOTS) {
        const at = table + 2 * h;
        if (w[at] === size) return at;
        if (w[at] === 0) {
          if (!insert) return -1;
          w[at] = size;
          return at;
        }
      }
      return -1;
    }
    alloc(nbytes, alignment) {
      if (alignment > 64) throw new Error('kiln_wasm: alignment ' + alignment + ' is more than 64');
      const size = Math.max(64, Math.ceil(nbytes / 64) * 64);
      return this.locked(() => {
        let w = this.words();
        const at = this.slot(w, size, false);
        if (at >= 0 && w[at + 1] !== 0) {
          const p = w[at + 1];
          w[at + 1] = w[p / 4];
          return p;
        }
        const block = w[this.base / 4 + 1];
        const end = block + 64 + size;
        try {
          this.ensure(end);
        } catch (e) {
          return 0;
        }
        w = this.words();
        w[this.base / 4 + 1] = end;
        w[block / 4] = size;
        return block + 64;
      });
    }
    release(p) {
      if (!p) return;
      this.locked(() => {
        const w = this.words();
        const at = this.slot(w, w[(p - 64) / 4], true);
        if (at < 0) return;  // a full table: the block stays out of use
        w[p / 4] = w[at + 1];
        w[at + 1] = p;
      });
    }
  }

  // The threads of a threaded module (built for -num-cores above 1, its
  // memory shared): one worker per thread past the first, each an instance
  // of the module on the same memory with a stack of its own, waiting on a
  // control block in that memory. A launch runs min(tasks, threads) tasks,
  // task 0 on the caller; a launch from inside a task runs as one task, as
  // kiln's ABI allows. Node.js only (worker_threads, and Atomics.wait on the
  // main thread, which browsers refuse there).
  const GEN = 0, FN = 1, CLOSURE = 2, TASKS = 3, LEFT = 4, STATUS = 5, READY = 6, STOP = 7;
  const THREAD_STACK = 4 << 20;
  // Loads of a word before sleeping on it (some tens of microseconds): a
  // model's launches come back to back, and waking a thread from
  // Atomics.wait costs about as much as a small kernel's task.
  const SPIN = 20000;
  function await_change(w, at, value) {
    for (let i = 0; i < SPIN; ++i) if (Atomics.load(w, at) !== value) return;
    Atomics.wait(w, at, value);
  }
  class Pool {
    constructor(state, module, threads) {
      const { Worker } = require('worker_threads');
      this.state = state;
      this.threads = threads;
      this.ctl = state.heap.alloc(64, 64);
      this.inTask = false;
      this.workers = [];
      for (let me = 1; me < threads; ++me) {
        const stack = state.heap.alloc(THREAD_STACK, 64);
        const data = { kilnThread: true, module, memory: state.memory, ctl: this.ctl, me, stackTop: stack + THREAD_STACK,
                       heapBase: state.heap.base };
        const w = new Worker(__filename, { workerData: data });
        w.unref();
        this.workers.push(w);
      }
      const words = () => new Int32Array(state.memory.buffer, this.ctl, 16);
      for (let ready; (ready = Atomics.load(words(), READY)) < threads - 1;) Atomics.wait(words(), READY, ready, 1000);
    }
    words() { return new Int32Array(this.state.memory.buffer, this.ctl, 16); }
    launch(fn, closure, maxTasks) {
      const table = this.state.instance.exports.__indirect_function_table;
      const n = this.inTask ? 1 : Math.max(1, Math.min(Number(maxTasks), this.threads));
      if (n === 1) return table.get(fn)(0n, 1n, closure);
      const w = this.words();
      w[FN] = fn;
      w[CLOSURE] = closure;
      w[TASKS] = n;
      w[STATUS] = 0;
      Atomics.store(w, LEFT, n - 1);
      Atomics.add(w, GEN, 1);
      Atomics.notify(w, GEN);
      this.inTask = true;
      let status, trap = null;
      try {
        status = table.get(fn)(0n, BigInt(n), closure);
      } catch (e) {
        trap = e;
      }
      this.inTask = false;
      // The other tasks finish before anything else touches their memory.
      for (let left; (left = Atomics.load(w, LEFT)) !== 0;) await_change(w, LEFT, left);
      if (trap) throw trap;
      return status !== 0 ? status : w[STATUS];
    }
    close() {
      const w = this.words();
      Atomics.store(w, STOP, 1);
      Atomics.add(w, GEN, 1);
      Atomics.notify(w, GEN);
      for (const worker of this.workers) worker.terminate();
    }
  }

  // A worker's life: its instance, its stack, then tasks until told to stop.
  function threadMain(data) {
    const state = { memory: data.memory };
    const imp = imports(state);
    imp.env.kiln_host_parallel_launch = (fn, closure) =>
      state.instance.exports.__indirect_function_table.get(fn)(0n, 1n, closure);
    state.instance = new WebAssembly.Instance(data.module, imp);
    state.heap = new Heap(data.memory, data.heapBase, false);
    state.instance.exports.__stack_pointer.value = data.stackTop;
    const table = state.instance.exports.__indirect_function_table;
    const words = () => new Int32Array(data.memory.buffer, data.ctl, 16);
    let gen = Atomics.load(words(), GEN);
    Atomics.add(words(), READY, 1);
    Atomics.notify(words(), READY);
    for (;;) {
      await_change(words(), GEN, gen);
      const w = words();
      gen = Atomics.load(w, GEN);
      if (Atomics.load(w, STOP)) return;
      const n = w[TASKS];
      if (data.me >= n) continue;
      let status;
      try {
        status = table.get(w[FN])(BigInt(data.me), BigInt(n), w[CLOSURE]);
      } catch (e) {
        status = 1;  // a trap in a task: KILN_STATUS_TASK_FAILED's kind of end
      }
      if (status !== 0) Atomics.compareExchange(w, STATUS, 0, status);
      if (Atomics.sub(w, LEFT, 1) === 1) Atomics.notify(w, LEFT);
    }
  }

  class KilnModule {
    constructor(instance, state) {
      this.instance = instance;
      this.exports = instance.exports;
      this.memory = state.memory;
      this.heap = state.heap;
      this.pool = state.pool;
      this.rt = instance.exports.kiln_runtime_api.value;
      this.argv = 0;
      this.argc = 0;
    }
    alloc(nbytes, alignment = 64) {
      const p = this.heap.alloc(nbytes, alignment);
      if (!p) throw new Error('kiln_wasm: out of memory allocating ' + nbytes + ' bytes');
      return p;
    }
    free(p) { this.heap.release(p); }
    // The threads a module built for several keeps (none otherwise).
    close() {
      if (this.pool) this.pool.close();
      this.pool = null;
    }
    bytes(p, n) { return new Uint8Array(this.memory.buffer, p, n); }
    f32(p, n) { return new Float32Array(this.memory.buffer, p, n); }
    string(p) {
      const b = new Uint8Array(this.memory.buffer);
      let e = p;
      while (b[e]) ++e;
      return new TextDecoder().decode(b.subarray(p, e));
    }
    // [{name, dtype, numel}] of a kernel's parameters (numel -1: any).
    signature(kernel) {
      const sig = this.exports[kernel + '__kiln_signature'];
      if (!sig) throw new Error('kiln_wasm: the module has no kernel ' + kernel);
      return this.string(sig.value).split(';').map((p) => {
        const [name, dtype, numel] = p.split(':');
        return { name, dtype, numel: Number(numel) };
      });
    }
    // Runs `kernel` over arguments at addresses `ptrs`; throws unless it
    // returns 0 (a WebAssembly trap throws a RuntimeError naming it).
    call(kernel, ptrs) {
      const fn = this.exports[kernel];
      if (typeof fn !== 'function') throw new Error('kiln_wasm: the module has no kernel ' + kernel);
      if (this.argc < ptrs.length) {
        if (this.argv) this.free(this.argv);
        this.argv = this.alloc(4 * ptrs.length);
        this.argc = ptrs.length;
      }
      new Uint32Array(this.memory.buffer, this.argv, ptrs.length).set(ptrs);
      const status = fn(this.argv, this.rt);
      if (status !== 0) throw new Error('kiln_wasm: kernel ' + kernel + ' returned status ' + status);
    }
  }

  function imports(state) {
    const env = libm();
    const u8 = () => new Uint8Array(state.memory.buffer);
    env.memcpy = (d, s, n) => { u8().copyWithin(d, s, s + n); return d; };
    env.memmove = env.memcpy;
    env.memset = (d, v, n) => { u8().fill(v & 255, d, d + n); return d; };
    env.kiln_host_alloc = (n, a) => state.heap.alloc(Number(n), Number(a));
    env.kiln_host_free = (p) => state.heap.release(p);
    env.kiln_host_parallel_launch = (fn, closure, maxTasks) => state.pool.launch(fn, closure, maxTasks);
    if (state.memory) env.memory = state.memory;
    return { env };
  }

  // The imports a module asks for that this loader does not give, named
  // (instantiation would fail with a less helpful LinkError).
  function check_imports(module, given) {
    for (const imp of WebAssembly.Module.imports(module)) {
      if (imp.kind === 'memory') continue;
      if (imp.kind === 'function' && !(given[imp.module] && imp.name in given[imp.module]))
        throw new Error('kiln_wasm: the module needs ' + imp.module + '.' + imp.name + ', which kiln_wasm.js does not provide');
    }
  }

  // Whether this engine runs relaxed SIMD as LLVM encodes it (the
  // standard's opcodes): V8 from 11.4 (Node.js 20 behind the flag above)
  // does; Node.js 18's V8 knew earlier opcodes and refuses such modules.
  let relaxed = null;
  function relaxedSimd() {
    if (relaxed === null) {
      // (func (param v128 v128 v128) (result v128) local.get 0..2 f32x4.relaxed_madd)
      relaxed = WebAssembly.validate(new Uint8Array([
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b,
        0x03, 0x02, 0x01, 0x00, 0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02,
        0x0b]));
    }
    return relaxed;
  }

  function compileSync(bytes) {
    try {
      return new WebAssembly.Module(bytes);
    } catch (e) {
      if (!relaxedSimd()) e.message += ' (this engine does not run relaxed SIMD: a module built with +relaxed-simd needs V8 11.4 or later, Node.js 20)';
      throw e;
    }
  }

  // A module built for threads imports its memory, shared.
  function threaded(module) { return WebAssembly.Module.imports(module).some((i) => i.kind === 'memory'); }

  function prepare(module) {
    const state = {};
    if (threaded(module)) {
      if (typeof require !== 'function') throw new Error('kiln_wasm: a module built for threads runs in Node.js only');
      state.memory = new WebAssembly.Memory({ initial: 512, maximum: 65536, shared: true });
    }
    const imp = imports(state);
    check_imports(module, imp);
    return [state, imp];
  }

  function finish(module, instance, state) {
    state.instance = instance;
    state.memory = instance.exports.memory || state.memory;
    state.heap = new Heap(state.memory, instance.exports.__heap_base.value, true);
    const threads = new Int32Array(state.memory.buffer, instance.exports.kiln_num_threads.value, 1)[0];
    if (threaded(module) && threads > 1) state.pool = new Pool(state, module, threads);
    return new KilnModule(instance, state);
  }

  function loadSync(bytes) {
    const module = bytes instanceof WebAssembly.Module ? bytes : compileSync(bytes);
    const [state, imp] = prepare(module);
    return finish(module, new WebAssembly.Instance(module, imp), state);
  }

  async function load(bytes) {
    const module = bytes instanceof WebAssembly.Module ? bytes : await WebAssembly.compile(bytes);
    const [state, imp] = prepare(module);
    return finish(module, await WebAssembly.instantiate(module, imp), state);
  }

  if (typeof require === 'function') {
    try {
      const wt = require('worker_threads');
      if (!wt.isMainThread && wt.workerData && wt.workerData.kilnThread) threadMain(wt.workerData);
    } catch (e) {
      if (e && e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }

  // Times `run` as kiln times native kernels (targets/runtime/timing.h's
  // measure_kernel, its kMaxNumber and kRaiseMargin): `warmup` untimed runs
  // and `warmup_ms` more, runs per repeat raised from `number` (at least
  // doubling) until one repeat lasts `min_repeat_ms`, then `repeat` repeats.
  // Returns {ms_per_run: [...], number}.
  const MAX_NUMBER = 1 << 24;
  const RAISE_MARGIN = 1.1;
  function measure(run, o) {
    const now = () => performance.now();
    const timeRuns = (number) => {
      const t0 = now();
      for (let i = 0; i < number; ++i) run();
      return now() - t0;
    };
    for (let i = 0; i < (o.warmup || 0); ++i) run();
    if (o.warmup_ms > 0) for (const until = now() + o.warmup_ms; now() < until;) run();
    let number = Math.max(1, o.number || 1);
    if (o.min_repeat_ms > 0) {
      for (;;) {
        const ms = timeRuns(number);
        if (ms >= o.min_repeat_ms || number >= MAX_NUMBER) break;
        const scale = ms > 0 ? (o.min_repeat_ms * RAISE_MARGIN) / ms : 2;
        number = Math.min(MAX_NUMBER, Math.ceil(number * Math.max(scale, 2)));
      }
    }
    const ms_per_run = [];
    for (let r = 0; r < Math.max(1, o.repeat); ++r) ms_per_run.push(timeRuns(number) / number);
    return { ms_per_run, number };
  }

  return { load, loadSync, relaxedSimd, measure, KilnModule };
});
