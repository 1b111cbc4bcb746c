import { afterAll, describe, expect, it } from 'vitest';
import { useCompiledOrtWasm } from '../../worker/ort-compiled-wasm.js';

// (module (func (export "answer") (result i32) i32.const 42))
const BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00,
  0x07, 0x0a, 0x01, 0x06, 0x61, 0x6e, 0x73, 0x77, 0x65, 0x72, 0x00, 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a,
  0x0b,
]);
const original = WebAssembly.instantiate;

afterAll(() => {
  WebAssembly.instantiate = original;
});

describe('useCompiledOrtWasm', () => {
  it('routes instantiation of the sentinel binary to the precompiled module', async () => {
    const module = new WebAssembly.Module(BYTES);
    const env: { wasm: Record<string, unknown> } = {
      wasm: { numThreads: 4, proxy: true, wasmPaths: 'https://cdn.example/' },
    };
    useCompiledOrtWasm(env as never, module);
    expect(env.wasm.numThreads).toBe(1);
    expect(env.wasm.proxy).toBe(false);
    expect(env.wasm.wasmPaths).toBeUndefined();
    const binary = env.wasm.wasmBinary as ArrayBuffer;
    expect(binary).toBeInstanceOf(ArrayBuffer);
    // What Emscripten does with `wasmBinary`: a Uint8Array view on it.
    const result = (await WebAssembly.instantiate(
      new Uint8Array(binary),
      {},
    )) as unknown as WebAssembly.WebAssemblyInstantiatedSource;
    expect(result.module).toBe(module);
    expect((result.instance.exports.answer as () => number)()).toBe(42);
  });

  it('passes every other call through', async () => {
    const { instance } = await WebAssembly.instantiate(BYTES, {});
    expect((instance.exports.answer as () => number)()).toBe(42);
  });
});
