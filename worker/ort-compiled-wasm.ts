/**
 * onnxruntime-web inside workerd. workerd refuses to compile WebAssembly from bytes, so the
 * runtime's `.wasm` is imported as a module (wrangler turns `import x from '….wasm'` into a
 * precompiled `WebAssembly.Module`) and ORT's instantiate call is routed to it: ORT is given a
 * small sentinel `wasmBinary` (which also makes it use its embedded, single-threaded glue
 * instead of importing a script from a URL), and `WebAssembly.instantiate` on exactly that
 * buffer instantiates the precompiled module instead. Every other call passes through.
 */

/** The part of onnxruntime-web's `env` this touches. */
export interface OrtEnvLike {
  wasm: { wasmBinary?: ArrayBufferLike | Uint8Array; numThreads?: number; proxy?: boolean; wasmPaths?: unknown };
}

let routed: WebAssembly.Module | undefined;
const sentinel = new ArrayBuffer(8);

/**
 * Make onnxruntime-web instantiate `module` (single-threaded, no proxy worker). Call before
 * the first `InferenceSession.create`; calling again is harmless.
 *
 * @example
 * import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm'
 * import * as ort from 'onnxruntime-web/wasm'
 * useCompiledOrtWasm(ort.env, ortWasm)
 */
export function useCompiledOrtWasm(env: OrtEnvLike, module: WebAssembly.Module): void {
  env.wasm.numThreads = 1;
  env.wasm.proxy = false;
  env.wasm.wasmPaths = undefined;
  env.wasm.wasmBinary = sentinel;
  const patch = routed === undefined;
  routed = module;
  if (!patch) return;
  const original = WebAssembly.instantiate.bind(WebAssembly) as (
    source: unknown,
    imports?: WebAssembly.Imports,
  ) => Promise<unknown>;
  const patched = (source: unknown, imports?: WebAssembly.Imports): Promise<unknown> => {
    // Emscripten wraps the binary as `new Uint8Array(wasmBinary)`: a view on the sentinel.
    const isSentinel = source === sentinel || (ArrayBuffer.isView(source) && source.buffer === sentinel);
    if (isSentinel && routed) {
      const compiled = routed;
      return (original(compiled, imports) as Promise<WebAssembly.Instance>).then((instance) => ({
        instance,
        module: compiled,
      }));
    }
    return original(source, imports);
  };
  (WebAssembly as { instantiate: unknown }).instantiate = patched;
}
