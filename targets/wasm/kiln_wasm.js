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

  // A first-fit heap over the module's memory past __heap_base: blocks of
  // multiples of 64 bytes, freed blocks kept by size for the next request of
  // that size (a kernel asks for the same scratch call after call), memory
  // grown by whole pages when the top is reached.
  class Heap {
    constructor(memory, base) {
      this.memory = memory;
      this.top = Math.ceil(base / 64) * 64;
      this.sizes = new Map();  // address -> size
      this.free = new Map();   // size -> [addresses]
    }
    alloc(nbytes, alignment) {
      const size = Math.max(64, Math.ceil(nbytes / 64) * 64);
      if (alignment > 64) throw new Error('kiln_wasm: alignment ' + alignment + ' is more than 64');
      const reuse = this.free.get(size);
      if (reuse && reuse.length) {
        const p = reuse.pop();
        this.sizes.set(p, size);
        return p;
      }
      const p = this.top;
      const end = p + size;
      const have = this.memory.buffer.byteLength;
      if (end > have) {
        try {
          this.memory.grow(Math.ceil((end - have) / PAGE));
        } catch (e) {
          return 0;
        }
      }
      this.top = end;
      this.sizes.set(p, size);
      return p;
    }
    release(p) {
      const size = this.sizes.get(p);
      if (size === undefined) return;
      this.sizes.delete(p);
      if (!this.free.has(size)) this.free.set(size, []);
      this.free.get(size).push(p);
    }
  }

  class KilnModule {
    constructor(instance, heap) {
      this.instance = instance;
      this.exports = instance.exports;
      this.memory = instance.exports.memory;
      this.heap = heap;
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
    return { env };
  }

  // The imports a module asks for that this loader does not give, named
  // (instantiation would fail with a less helpful LinkError).
  function check_imports(module, given) {
    for (const imp of WebAssembly.Module.imports(module)) {
      if (imp.kind === 'function' && !(given[imp.module] && imp.name in given[imp.module]))
        throw new Error('kiln_wasm: the module needs ' + imp.module + '.' + imp.name + ', which kiln_wasm.js does not provide');
    }
  }

  function finish(instance, state) {
    state.memory = instance.exports.memory;
    state.heap = new Heap(state.memory, instance.exports.__heap_base.value);
    return new KilnModule(instance, state.heap);
  }

  function loadSync(bytes) {
    const state = {};
    const module = bytes instanceof WebAssembly.Module ? bytes : new WebAssembly.Module(bytes);
    const imp = imports(state);
    check_imports(module, imp);
    return finish(new WebAssembly.Instance(module, imp), state);
  }

  async function load(bytes) {
    const state = {};
    const module = bytes instanceof WebAssembly.Module ? bytes : await WebAssembly.compile(bytes);
    const imp = imports(state);
    check_imports(module, imp);
    return finish(await WebAssembly.instantiate(module, imp), state);
  }

  return { load, loadSync, KilnModule };
});
