// kiln_model.js: runs a model `kiln compile --target wasm32` wrote, in
// Node.js or a browser (docs/targets.md, "WebAssembly"). The folder holds
// kernels.wasm (one kernel per task), model.json (the calls in order and
// where each value lives: an input, an output, the weights or the arena),
// weights.bin, and this file beside kiln_wasm.js.
//
//   const { KilnModel } = require('./kiln_model.js');
//   const model = KilnModel.fromFiles(dir);            // Node.js
//   const model = await KilnModel.load(planJson, weightsArrayBuffer, wasmBytes);  // anywhere
//   const [out] = model.run([Float32Array.from(image)]);  // typed arrays, model.inputs[k]'s dtype
//
// As a program (what `kiln run` does with such a folder):
//   node kiln_model.js DIR --inputs IN --outputs OUT [--repeat R]
// reads IN/input_K.bin (raw little-endian bytes), writes OUT/output_K.bin,
// and prints {"ms": [...], "median_ms": M, "best_ms": B} as its last line.
'use strict';
(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory(require('./kiln_wasm.js'));
  else root.kilnModel = factory(root.kilnWasm);
})(typeof globalThis !== 'undefined' ? globalThis : this, function (kilnWasm) {
  const BYTES = { bool: 1, int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, bfloat16: 2, int32: 4, uint32: 4,
                  float32: 4, int64: 8, uint64: 8, float64: 8 };
  const ARRAYS = { bool: Uint8Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
                   float16: Uint16Array, bfloat16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
                   float32: Float32Array, int64: BigInt64Array, uint64: BigUint64Array, float64: Float64Array };

  function nbytes(v) {
    if (!(v.dtype in BYTES)) throw new Error('kiln_model: no element type ' + v.dtype);
    return v.shape.reduce((a, b) => a * b, 1) * BYTES[v.dtype];
  }

  class KilnModel {
    // plan: model.json's object; weights: an ArrayBuffer or typed array of
    // weights.bin; module: a kiln_wasm KilnModule of kernels.wasm.
    constructor(plan, weights, module) {
      if (plan.kiln_compiled_model !== 1) throw new Error('kiln_model: model.json of format ' + plan.kiln_compiled_model);
      this.plan = plan;
      this.m = module;
      const value = (id) => {
        const v = plan.values[String(id)];
        if (!v) throw new Error('kiln_model: value ' + id + ' is used but not described');
        return v;
      };
      this.inputs = plan.inputs.map(value);
      this.outputs = plan.outputs.map(value);
      const w = new Uint8Array(weights.buffer || weights, weights.byteOffset || 0, plan.weight_bytes);
      this.weights = module.alloc(Math.max(1, plan.weight_bytes));
      module.bytes(this.weights, plan.weight_bytes).set(w);
      this.arena = module.alloc(Math.max(1, plan.arena_bytes));
      this.inputAt = this.inputs.map((v) => module.alloc(Math.max(1, nbytes(v))));
      this.outputAt = this.outputs.map((v) => module.alloc(Math.max(1, nbytes(v))));
      const at = (id) => {
        const s = value(id).storage;
        if (s.kind === 'input') return this.inputAt[s.index];
        if (s.kind === 'output') return this.outputAt[s.index];
        if (s.kind === 'weight') return this.weights + s.offset;
        if (s.kind === 'arena') return this.arena + s.offset;
        throw new Error('kiln_model: value ' + id + ' lives in ' + s.kind);
      };
      this.calls = plan.calls.map((c) => ({ kernel: c.kernel, ptrs: c.args.map(at) }));
      // An output that is a constant or an input: copied after the calls.
      this.copies = plan.outputs.map((id, k) => ({ from: at(id), to: this.outputAt[k], n: nbytes(this.outputs[k]) }))
                               .filter((c) => c.from !== c.to);
    }

    static async load(plan, weights, wasmBytes) {
      return new KilnModel(plan, weights, await kilnWasm.load(wasmBytes));
    }

    static fromFiles(dir) {
      const fs = require('fs');
      const path = require('path');
      const plan = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      return new KilnModel(plan, fs.readFileSync(path.join(dir, 'weights.bin')),
                           kilnWasm.loadSync(fs.readFileSync(path.join(dir, 'kernels.wasm'))));
    }

    // One inference: `inputs` as typed arrays (or any array of numbers) in
    // the order of this.inputs; returns copies of the outputs.
    run(inputs) {
      if (inputs.length !== this.inputs.length)
        throw new Error('kiln_model: the model takes ' + this.inputs.length + ' inputs, not ' + inputs.length);
      inputs.forEach((x, k) => this.setInput(k, x));
      this.runLoaded();
      return this.outputs.map((v, k) => this.output(k));
    }

    setInput(k, x) {
      const v = this.inputs[k];
      const n = nbytes(v);
      const bytes = x instanceof Uint8Array && x.length === n ? x
                  : new Uint8Array(ArrayBuffer.isView(x) ? x.buffer : ARRAYS[v.dtype].from(x).buffer,
                                   ArrayBuffer.isView(x) ? x.byteOffset : 0, n);
      if (bytes.length !== n) throw new Error('kiln_model: input ' + k + ' (' + v.name + ') has ' + bytes.length + ' bytes, not ' + n);
      this.m.bytes(this.inputAt[k], n).set(bytes);
    }

    // The calls on whatever the inputs hold now.
    runLoaded() {
      for (const c of this.calls) this.m.call(c.kernel, c.ptrs);
      for (const c of this.copies) new Uint8Array(this.m.memory.buffer).copyWithin(c.to, c.from, c.from + c.n);
    }

    output(k) {
      const v = this.outputs[k];
      const n = nbytes(v);
      const copy = new Uint8Array(n);
      copy.set(this.m.bytes(this.outputAt[k], n));
      return new ARRAYS[v.dtype](copy.buffer);
    }
  }

  function main(argv) {
    const fs = require('fs');
    const path = require('path');
    const dir = argv[0];
    const opt = (name, dflt) => {
      const i = argv.indexOf(name);
      return i >= 0 ? argv[i + 1] : dflt;
    };
    const model = KilnModel.fromFiles(dir);
    const inputs = model.inputs.map((v, k) => fs.readFileSync(path.join(opt('--inputs'), 'input_' + k + '.bin')));
    const outDir = opt('--outputs');
    const repeat = Number(opt('--repeat', '10'));
    inputs.forEach((x, k) => model.setInput(k, new Uint8Array(x.buffer, x.byteOffset, x.length)));
    model.runLoaded();
    if (outDir) {
      fs.mkdirSync(outDir, { recursive: true });
      model.outputs.forEach((v, k) => fs.writeFileSync(path.join(outDir, 'output_' + k + '.bin'),
                                                       Buffer.from(model.output(k).buffer)));
    }
    // A quarter of a second warm, then single runs, as `kiln run` times.
    const ms = repeat > 0
      ? kilnWasm.measure(() => model.runLoaded(), { warmup_ms: 250, number: 1, repeat }).ms_per_run : [];
    const sorted = [...ms].sort((a, b) => a - b);
    console.log(JSON.stringify({ ms, median_ms: sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0,
                                 best_ms: sorted.length ? sorted[0] : 0 }));
  }

  if (typeof require !== 'undefined' && typeof module !== 'undefined' && require.main === module)
    main(process.argv.slice(2));
  return { KilnModel, main };
});
