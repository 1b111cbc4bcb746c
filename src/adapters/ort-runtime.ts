/**
 * onnxruntime-web set-up shared by the USE-lite and transformers.js embedders: which device to
 * run on, where the WASM files come from (never a CDN), and importing the right build for the
 * runtime. Everything here is imported lazily by the adapters, never by the core.
 */

/** The onnxruntime-web module. @internal */
export type Ort = typeof import('onnxruntime-web');

/** Where to run: WebGPU when an adapter exists ('auto'), or WASM on the CPU. */
export type OrtDevice = 'auto' | 'wasm' | 'webgpu';

/** onnxruntime-web WASM file locations: a folder URL/path, or the two files explicitly. */
export type WasmPaths = string | { readonly wasm?: string; readonly mjs?: string };

/** Whether this is Node (not a browser with a `process` shim). @internal */
export const isNode = (): boolean =>
  typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

/**
 * Resolves 'auto' to a concrete device: WebGPU only when `navigator.gpu.requestAdapter()`
 * yields an adapter (never in Node, where onnxruntime-web has no WebGPU).
 *
 * @example
 * const device = await pickDevice('auto') // 'webgpu' | 'wasm'
 */
export async function pickDevice(device: OrtDevice = 'auto'): Promise<'wasm' | 'webgpu'> {
  if (device === 'wasm') return 'wasm';
  if (device === 'webgpu') return 'webgpu';
  return (await hasWebGpuAdapter()) ? 'webgpu' : 'wasm';
}

/**
 * True when this runtime exposes WebGPU and an adapter can be obtained.
 *
 * @example
 * if (await hasWebGpuAdapter()) console.log('GPU available')
 */
export async function hasWebGpuAdapter(): Promise<boolean> {
  if (isNode()) return false;
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)?.gpu;
  if (!gpu) return false;
  try {
    return (await gpu.requestAdapter()) != null;
  } catch {
    return false;
  }
}

/**
 * Points an onnxruntime-web `env` at app-served WASM files. Node defaults to the local
 * package; in browsers a CDN default (transformers.js sets jsDelivr on import, when an app also
 * uses it) is cleared so
 * the runtime falls back to the files shipped beside the bundle.
 *
 * @example
 * configureOrtWasm(ort.env, { wasmPaths: '/ort/', numThreads: 1 })
 */
export async function configureOrtWasm(
  env: { wasm: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean } },
  options: { wasmPaths?: WasmPaths | undefined; numThreads?: number | undefined },
): Promise<void> {
  if (options.wasmPaths !== undefined) {
    env.wasm.wasmPaths = options.wasmPaths;
  } else if (isNode()) {
    env.wasm.wasmPaths = await nodeOrtDistUrl();
  } else if (isCdnPath(env.wasm.wasmPaths)) {
    env.wasm.wasmPaths = undefined;
  }
  const threads = options.numThreads ?? (isNode() ? 1 : undefined);
  if (threads !== undefined) env.wasm.numThreads = threads;
}

function isCdnPath(paths: unknown): boolean {
  const values = typeof paths === 'string' ? [paths] : paths && typeof paths === 'object' ? Object.values(paths) : [];
  return values.some((v) => typeof v === 'string' && /^https:\/\/(cdn\.jsdelivr\.net|unpkg\.com|cdnjs\.)/.test(v));
}

/** file:// URL of `node_modules/onnxruntime-web/dist/`, resolved through the package exports. */
async function nodeOrtDistUrl(): Promise<string> {
  const { createRequire } = await nodeImport<typeof import('node:module')>('node:module');
  const { pathToFileURL } = await nodeImport<typeof import('node:url')>('node:url');
  const { dirname } = await nodeImport<typeof import('node:path')>('node:path');
  // Resolve as `import('onnxruntime-web')` does (from this module), then from the app's folder.
  const from = [import.meta.url, pathToFileURL(`${process.cwd()}/`).href];
  for (const base of from) {
    try {
      const wasm = createRequire(base).resolve('onnxruntime-web/ort-wasm-simd-threaded.wasm');
      return `${pathToFileURL(dirname(wasm)).href}/`;
    } catch {
      // try the next base
    }
  }
  throw new Error('use-lite: onnxruntime-web not found; pass wasmPaths');
}

/**
 * Imports a module only Node needs. The specifier is opaque to bundlers, so browser builds
 * neither warn about `node:` modules nor ship the Node build of onnxruntime-web.
 * @internal
 */
export function nodeImport<T>(specifier: string): Promise<T> {
  return import(/* @vite-ignore */ specifier) as Promise<T>;
}

/**
 * Starts onnxruntime-web's backend for `device` without a model: the WASM module's download and
 * compile, its worker threads and the runtime's init (or the WebGPU device). ORT does this on the
 * first session only, after the model bytes are in hand; started early it runs while the model
 * downloads. ORT initialises the backend before it reads the bytes, so an empty model starts it
 * and is then refused at once. Never rejects: a backend that cannot start fails the real session
 * with ORT's own error.
 *
 * @example
 * const ort = await importOrt('wasm')
 * await configureOrtWasm(ort.env, { wasmPaths: '/ort/' })
 * const started = startOrtBackend(ort, 'wasm') // meanwhile: fetch the model
 * @internal
 */
export async function startOrtBackend(ort: Pick<Ort, 'InferenceSession'>, device: 'wasm' | 'webgpu'): Promise<void> {
  try {
    const session = await ort.InferenceSession.create(new Uint8Array(0), { executionProviders: [device] });
    await session.release(); // not expected: an empty model has no graph
  } catch {
    // "No graph was found" (the backend is up), or the backend's own failure (reported later).
  }
}

/** Imports onnxruntime-web: the Node build in Node, the WebGPU or plain WASM build in browsers. @internal */
export async function importOrt(device: 'wasm' | 'webgpu'): Promise<Ort> {
  if (isNode()) return nodeImport<Ort>('onnxruntime-web');
  // The WebGPU build is the one transformers.js uses (one shared runtime when an app also uses
  // transformersEmbedder); the plain WASM build
  // is markedly faster on CPU, so it is used whenever the GPU is not.
  return device === 'webgpu' ? import('onnxruntime-web/webgpu') : import('onnxruntime-web/wasm');
}
