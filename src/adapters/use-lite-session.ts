/**
 * Where USE-lite runs: the ONNX Runtime session for the device asked for, after the fallbacks
 * `'auto'` allows (onnxruntime-node → WASM in Node; WebGPU → WASM when its session fails), and
 * the early start of onnxruntime-web so its WASM compile overlaps the model download.
 */

import { errorMessage } from '../describe-error.js';
import { createNativeSession, importOrtNode, nativeUnavailableReason } from './ort-native.js';
import {
  configureOrtWasm,
  importOrt,
  isNode,
  type Ort,
  type OrtDevice,
  pickDevice,
  startOrtBackend,
  type WasmPaths,
} from './ort-runtime.js';

type OrtSession = import('onnxruntime-web').InferenceSession;

/**
 * Where to run. `'native'`: onnxruntime-node's CPU kernels (Node only; an optional peer
 * dependency). `'wasm'`: onnxruntime-web on the CPU, any runtime. `'webgpu'`: onnxruntime-web on
 * the GPU. `'auto'`: native in Node when onnxruntime-node loads, else WebGPU when an adapter
 * exists, else WASM.
 */
export type UseLiteDevice = OrtDevice | 'native';

/** What the session is asked for: the device, the runtime's files and threads, the warning sink. @internal */
export interface SessionRequest {
  readonly requested: UseLiteDevice;
  readonly wasmPaths?: WasmPaths | undefined;
  readonly numThreads?: number | undefined;
  readonly warn: (message: string) => void;
}

/** A session made, with the device it ended on and why, when that is not the one asked for. @internal */
export interface CreatedSession {
  device: 'native' | 'wasm' | 'webgpu';
  Tensor: Ort['Tensor'];
  session: OrtSession;
  numThreads: number | undefined;
  fallbackReason?: string;
}

/**
 * The device plan of one load, decided before any download: whether onnxruntime-node is
 * refused (and why), and for onnxruntime-web the device it will use and its start-up, begun now.
 *
 * @internal
 */
export interface SessionPlan {
  readonly nativeRefused: string | undefined;
  /** The onnxruntime-web device, when the plan is the web runtime from the start. */
  readonly web: Promise<'wasm' | 'webgpu'> | undefined;
  /** When onnxruntime-web was up, in ms after `started`; undefined when it is not started early. */
  readonly runtime: Promise<number> | undefined;
}

/**
 * Decide the device and start onnxruntime-web's start-up (its WASM compile and threads need no
 * model, so they run while the model downloads instead of after). A `'native'` request without
 * onnxruntime-node is an error here, before anything downloads.
 *
 * @example
 * const plan = planSession({ requested: 'auto', warn: console.warn }, performance.now())
 *
 * @internal
 */
export function planSession(request: SessionRequest, started: number): SessionPlan {
  const { requested } = request;
  const nativeRefused = nativeUnavailableReason();
  if (requested === 'native' && nativeRefused)
    throw new Error(`use-lite: device 'native' needs onnxruntime-node: ${nativeRefused}; use 'wasm' or 'auto'`);
  const web =
    requested === 'native' || (requested === 'auto' && nativeRefused === undefined) ? undefined : pickDevice(requested);
  // Failures surface later, where the session is created.
  const runtime = web
    ?.then(async (device) => {
      const ort = await importOrt(device);
      await configureOrtWasm(ort.env, { wasmPaths: request.wasmPaths, numThreads: request.numThreads });
      await startOrtBackend(ort, device);
    })
    .catch(() => undefined)
    .then(() => performance.now() - started);
  return { nativeRefused, web, runtime };
}

/**
 * The session of a plan: native when asked or when `'auto'` finds onnxruntime-node (falling to
 * WASM, with one warning, when its session fails), else onnxruntime-web.
 *
 * @example
 * const { device, session } = await createUseLiteSession(model, request, plan)
 *
 * @internal
 */
export async function createUseLiteSession(
  model: Uint8Array,
  request: SessionRequest,
  plan: SessionPlan,
): Promise<CreatedSession> {
  const { requested } = request;
  if (requested === 'native') {
    try {
      return { device: 'native', ...(await createNative(model, request)) };
    } catch (error) {
      throw new Error(`use-lite: ${errorMessage(error)}`);
    }
  }
  if (requested === 'auto' && plan.nativeRefused === undefined) {
    try {
      return { device: 'native', ...(await createNative(model, request)) };
    } catch (error) {
      // The same vectors come out of WASM, only slower: say so once and carry on.
      const fallbackReason = errorMessage(error);
      request.warn(`use-lite: ${fallbackReason}; embedding on onnxruntime-web WASM instead (several times slower)`);
      return { ...(await createWeb(model, 'wasm', request)), fallbackReason };
    }
  }
  const wanted = await (plan.web ?? pickDevice(requested));
  await plan.runtime;
  const created: CreatedSession = await createWeb(model, wanted, request);
  if (requested === 'auto' && wanted === 'wasm')
    created.fallbackReason = isNode() ? 'no WebGPU in Node' : 'no WebGPU adapter';
  return created;
}

/** An onnxruntime-node session on the CPU, one intra-op thread unless asked for more. */
async function createNative(model: Uint8Array, request: SessionRequest) {
  const ort = await importOrtNode();
  const numThreads = Math.max(1, Math.floor(request.numThreads ?? 1));
  return { Tensor: ort.Tensor, session: await createNativeSession(ort, model, numThreads), numThreads };
}

/** An onnxruntime-web session on one device. */
async function createWebSession(device: 'wasm' | 'webgpu', model: Uint8Array, request: SessionRequest) {
  const ort = await importOrt(device);
  await configureOrtWasm(ort.env, { wasmPaths: request.wasmPaths, numThreads: request.numThreads });
  const session = await ort.InferenceSession.create(model, {
    executionProviders: [device],
    // 'basic' is constant folding (which dequantises the int8 weights once, here at load) and
    // the simple fusions: the graph it leaves is the one 'extended'/'all' leave, less one
    // Gemm+Tanh fusion, and building it skips their passes (a shorter session creation).
    graphOptimizationLevel: 'basic',
  });
  const threads = ort.env.wasm.numThreads;
  return { Tensor: ort.Tensor, session, numThreads: typeof threads === 'number' ? threads : undefined };
}

/** The onnxruntime-web path: WebGPU or WASM, with 'auto' and a failed WebGPU session ending on WASM. */
async function createWeb(model: Uint8Array, wanted: 'wasm' | 'webgpu', request: SessionRequest) {
  try {
    return { device: wanted, ...(await createWebSession(wanted, model, request)) };
  } catch (error) {
    if (wanted !== 'webgpu' || request.requested === 'webgpu') throw error;
    // 'auto' found an adapter but the WebGPU session failed: CPU still works.
    const fallbackReason = `webgpu session failed: ${errorMessage(error)}`;
    return { device: 'wasm' as const, fallbackReason, ...(await createWebSession('wasm', model, request)) };
  }
}
