/**
 * onnxruntime-node for the USE-lite embedder: the native CPU runtime (AVX2/AVX-512 kernels, real
 * threads), several times faster than onnxruntime-web's WASM on the same model and texts. Node
 * only; imported through {@link nodeImport}, so no browser, Deno or Workers bundle carries it,
 * and it stays an optional peer dependency.
 */

import { errorMessage } from '../describe-error.js';
import { isNode, nodeImport, type Ort } from './ort-runtime.js';

/**
 * The part of onnxruntime-node the embedder uses. Its API is onnxruntime-web's (both implement
 * onnxruntime-common), so the web types describe it and no onnxruntime-node types leak into
 * loopctl's own declarations. @internal
 */
export type NativeOrt = Pick<Ort, 'InferenceSession' | 'Tensor'>;

type OrtSession = import('onnxruntime-web').InferenceSession;

/** Why the native runtime cannot be used here, as one sentence; undefined when it may be tried. */
export function nativeUnavailableReason(): string | undefined {
  if (!isPlainNode()) return `onnxruntime-node runs only in Node (this is ${runtimeName()})`;
  return undefined;
}

/**
 * Imports onnxruntime-node, turning "not installed" and "installed but broken" into one clear
 * message each (the native binary is per platform; a missing or mismatched one fails here).
 * @internal
 */
export async function importOrtNode(): Promise<NativeOrt> {
  const unavailable = nativeUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  let module: NativeOrt & { default?: NativeOrt };
  try {
    module = await nodeImport<NativeOrt & { default?: NativeOrt }>('onnxruntime-node');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    // The error's own message (not its cause's): it names the module that was not found.
    const message = error instanceof Error ? error.message : String(error);
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      /onnxruntime-node/.test(message) &&
      !/onnxruntime-node[\\/]/.test(message)
    ) {
      throw new Error('onnxruntime-node is not installed (ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node)');
    }
    throw new Error(`onnxruntime-node failed to load: ${firstLine(errorMessage(error))}`);
  }
  // A CommonJS package: Node gives named exports when it can detect them, always a default.
  const ort = typeof module.InferenceSession?.create === 'function' ? module : module.default;
  if (!ort || typeof ort.InferenceSession?.create !== 'function' || typeof ort.Tensor !== 'function') {
    throw new Error('onnxruntime-node failed to load: the module has no InferenceSession');
  }
  return ort;
}

/**
 * A native CPU session: `threads` is ONNX Runtime's intra-op pool (the matmuls' threads); the
 * graph is a single chain, so inter-op parallelism stays at one thread. `offThread` (the
 * default) keeps the session in a worker thread (`ort-native-thread.ts`), so a model call does
 * not hold the event loop; `false` runs it on the calling thread.
 * @internal
 */
export async function createNativeSession(
  ort: NativeOrt,
  model: Uint8Array,
  threads: number,
  offThread = true,
): Promise<OrtSession> {
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  } as const;
  if (!offThread) return ort.InferenceSession.create(model, options);
  const { createThreadedNativeSession } = await import('./ort-native-thread.js');
  return createThreadedNativeSession(model, options);
}

/** Node itself: Deno and Bun define `process.versions.node` too, but do not run Node addons the same way. */
function isPlainNode(): boolean {
  const global = globalThis as { Deno?: unknown; Bun?: unknown };
  return isNode() && global.Deno === undefined && global.Bun === undefined;
}

function runtimeName(): string {
  const global = globalThis as { Deno?: unknown; Bun?: unknown; WebSocketPair?: unknown; document?: unknown };
  if (global.Deno !== undefined) return 'Deno';
  if (global.Bun !== undefined) return 'Bun';
  if (global.document !== undefined) return 'a browser';
  if (global.WebSocketPair !== undefined) return 'Cloudflare Workers';
  return 'not Node';
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
