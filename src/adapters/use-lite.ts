/**
 * The offline default embedder: Universal Sentence Encoder lite ported to ONNX by
 * `npm run build:model` (see docs/model.md), run with onnxruntime-node (native, in Node, when
 * installed) or onnxruntime-web (WASM/WebGPU everywhere) and tokenised by
 * {@link createUseLiteTokenizer} from the generated `vocab.json` — an exact port of the TF.js
 * model's own tokenizer, so no transformers.js is needed. Both runtimes are imported lazily,
 * so the core bundle carries neither.
 *
 * The ONNX Runtime set-up (`pickDevice`, `hasWebGpuAdapter`, `configureOrtWasm`) and the
 * tokenizer are exported here too; `loopctl/transformers` holds the transformers.js embedder.
 *
 * @module loopctl/use-lite
 */

import type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from '../embed/embedder.js';
import { loadableEmbedder, loadOnce, type ModelCallQueue } from '../embed/load-once.js';
import { mergeOptions } from '../options.js';
import type { WasmPaths } from './ort-runtime.js';
import { defaultModelLoader, type ModelFileLoader, readModelFolder } from './use-lite-files.js';
import {
  embedUseLite,
  runUseLiteBatch,
  tokenizeUseLite,
  USE_LITE_DIMENSIONS,
  USE_LITE_MAX_TOKENS,
  type UseLiteRunState,
} from './use-lite-run.js';
import { createUseLiteSession, planSession, type UseLiteDevice } from './use-lite-session.js';
import { createUseLiteTokenizer, type UseLiteVocabEntry } from './use-lite-tokenizer.js';

export type { OrtDevice, WasmPaths } from './ort-runtime.js';
export { configureOrtWasm, hasWebGpuAdapter, pickDevice } from './ort-runtime.js';
export type { ModelFileLoader } from './use-lite-files.js';
export { resolveModelFile } from './use-lite-files.js';
export { USE_LITE_DIMENSIONS, USE_LITE_MAX_TOKENS } from './use-lite-run.js';
export type { UseLiteDevice } from './use-lite-session.js';
export type { UseLiteTokenizer, UseLiteVocabEntry } from './use-lite-tokenizer.js';
export { createUseLiteTokenizer, normalizeUseLite } from './use-lite-tokenizer.js';

/** Weights variant: the fp32 port, or int8 weight-only (a quarter of the download). */
export type UseLiteDtype = 'fp32' | 'int8';

/**
 * Which encoder: `'base'`, the original USE-lite weights, or `'tools'`, USE-lite fine-tuned
 * for prompt → tool retrieval (`loopctl model --variant tools`; docs/model.md). Same graph,
 * tokenizer and runtimes; its own files in the model folder and its own embedder id, so
 * vectors of one are never served to the other.
 */
export type UseLiteVariant = 'base' | 'tools';

/**
 * The ONNX file of a variant and dtype, relative to the model folder.
 *
 * @example
 * useLiteModelFile('tools', 'int8') // 'onnx/model_tools_quantized.onnx'
 */
export function useLiteModelFile(variant: UseLiteVariant, dtype: UseLiteDtype): string {
  const stem = variant === 'base' ? 'model' : `model_${variant}`;
  return `onnx/${stem}${dtype === 'int8' ? '_quantized' : ''}.onnx`;
}

/**
 * The embedder id of a variant and dtype: what vectors files and caches are keyed by.
 * `tools1` names the first tuned weights; retrained weights get a new number.
 *
 * @example
 * useLiteEmbedderId('base', 'int8') // 'use-lite/int8/mean/tok2' (unchanged, so old caches stay valid)
 * useLiteEmbedderId('tools', 'int8') // 'use-lite-tools1/int8/mean/tok2'
 */
export function useLiteEmbedderId(variant: UseLiteVariant, dtype: UseLiteDtype): string {
  // "tok2": the exact reference tokenizer; vectors cached under the earlier tokenizer differ
  // on tie texts, so they must not be reused.
  return `${variant === 'base' ? 'use-lite' : 'use-lite-tools1'}/${dtype}/mean/tok2`;
}

/** Options for {@link useLiteEmbedder}. */
export interface UseLiteOptions {
  /** Base URL or directory of the built `models/use-lite` folder. */
  modelPath: string | URL;
  /** Default `'int8'`: measured cosine to the TF.js reference ≥ 0.999 (docs/model.md). */
  dtype?: UseLiteDtype;
  /**
   * Default `'base'`. `'tools'` loads the tuned encoder the folder holds when it was built with
   * `loopctl model --variant tools` (its own ONNX files and embedder id).
   */
  variant?: UseLiteVariant;
  /**
   * Default `'auto'`. In Node: onnxruntime-node when it is installed and loads (the same vectors,
   * several times faster), else WASM after one warning (`onWarning`). In browsers, Deno and
   * Workers: WebGPU when `navigator.gpu` yields an adapter, else WASM. `'native'` outside Node,
   * or without onnxruntime-node, is an error.
   */
  device?: UseLiteDevice;
  /**
   * Where onnxruntime-web finds its `.wasm`/`.mjs` files (served by the app; never a CDN).
   * Node default: the local `node_modules/onnxruntime-web/dist/`. Browser default: the files
   * next to the bundled runtime (what bundlers emit for `new URL(..., import.meta.url)`).
   */
  wasmPaths?: WasmPaths;
  /**
   * CPU threads: onnxruntime-node's intra-op threads, or onnxruntime-web's WASM threads. Default
   * 1 in Node (either runtime; a server's other work keeps its cores); in browsers
   * onnxruntime-web's own default. WASM fixes its thread count at its first session in a
   * process; a native session takes its own.
   */
  numThreads?: number;
  /**
   * Texts per model call at most. Default 32. Texts are grouped by token length first (at most
   * 10% padding per call), so a call's cost is close to its real tokens. On a CPU a call also
   * carries at most 128 padded tokens (one full-length text, e.g. 8 texts of 16 tokens), since
   * a call holds the thread until it ends; on WebGPU batches stay this wide.
   */
  batchSize?: number;
  /** Loading (model bytes) and embedding (texts done) progress. */
  onProgress?: (progress: EmbedProgress) => void;
  /** Custom loader for the model files, e.g. one that caches in the Cache API. */
  fetch?: ModelFileLoader;
  /**
   * Told once per load when `'auto'` in Node cannot use onnxruntime-node (not installed, or its
   * binary fails to load) and runs on WASM instead, and once per process and path when
   * `modelPath` holds no model (with the path tried and the command that builds it). Default:
   * `console.warn`.
   */
  onWarning?: (message: string) => void;
}

/** What actually runs, for display: the runtime chosen after any fallback. */
export interface UseLiteBackend {
  /** `'native'` is onnxruntime-node; `'wasm'` and `'webgpu'` are onnxruntime-web. */
  readonly device: 'native' | 'wasm' | 'webgpu';
  readonly dtype: UseLiteDtype;
  readonly variant: UseLiteVariant;
  /** CPU threads the session uses (native intra-op or WASM); undefined when the runtime decides. */
  readonly numThreads: number | undefined;
  /** Why 'auto' or 'webgpu' ended on WASM, when it did (e.g. onnxruntime-node not installed). */
  readonly fallbackReason?: string;
  /** Wall time of the whole load (runtime, tokenizer, model, session), in ms. */
  readonly loadMs: number;
  /**
   * Where `loadMs` went, in ms: `files` (vocabulary and model downloads), `tokenizer`, `session`
   * (session creation, plus any wait for the runtime's start-up) and `warmUp` (the first run),
   * one after the other. `runtime` overlaps them: how long after the load began onnxruntime-web
   * was up (module imported, WASM compiled, threads started), having started alongside the
   * downloads; 0 for the native runtime, which starts with its session.
   */
  readonly loadPhases: {
    readonly files: number;
    readonly tokenizer: number;
    readonly session: number;
    readonly warmUp: number;
    readonly runtime: number;
  };
  /** Size of the ONNX file loaded, in bytes. */
  readonly modelBytes: number;
}

/**
 * The embedder returned by {@link useLiteEmbedder}.
 *
 * @example
 * const embedder: UseLiteEmbedder = useLiteEmbedder({ modelPath: 'models/use-lite' })
 * const backend = await embedder.load() // { device: 'wasm', dtype: 'int8', … }
 */
export type UseLiteEmbedder = LoadableEmbedder<UseLiteBackend>;

/** A loaded model: the session, its tokenizer, and what runs, for display. */
interface Loaded extends UseLiteRunState {
  backend: UseLiteBackend;
}

/**
 * Universal Sentence Encoder lite as an {@link Embedder}: 512-d, L2-normalised, fully offline
 * once the model folder is served (or on disk in Node).
 *
 * @example
 * import { useLiteEmbedder } from 'loopctl/use-lite'
 * const embedder = useLiteEmbedder({ modelPath: '/models/use-lite', wasmPaths: '/ort/' })
 * const [query] = await embedder.embed(['weather in Paris tomorrow'])
 * console.log(embedder.backend?.device) // 'webgpu' or 'wasm' in a browser; 'native' in Node
 *
 * @example
 * // Node, a batch job on every core: onnxruntime-node (ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node), or an error.
 * const native = useLiteEmbedder({ modelPath: 'models/use-lite', device: 'native', numThreads: 4 })
 */
export function useLiteEmbedder(options: UseLiteOptions): UseLiteEmbedder {
  const settings = useLiteSettings(options);
  const { variant, dtype, batchSize } = settings;
  // A load that fails is retried by a later call (e.g. after the server comes up).
  const loaded = loadOnce(() => loadUseLite(options, settings));
  const embed = async (
    texts: readonly string[],
    embedOptions: EmbedOptions = {},
    modelCall: ModelCallQueue,
  ): Promise<Float32Array[]> => {
    embedOptions.signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const state = await loaded.get();
    embedOptions.signal?.throwIfAborted();
    const plan = { batchSize, onProgress: (progress: EmbedProgress) => options.onProgress?.(progress) };
    return embedUseLite(state, texts, plan, embedOptions, modelCall);
  };
  return loadableEmbedder({
    id: useLiteEmbedderId(variant, dtype),
    dimensions: () => USE_LITE_DIMENSIONS,
    model: loaded,
    // onnxruntime-web rejects concurrent run() on one session: every call goes through the
    // embedder's one queue, and a query's call waits for the call in progress only.
    embed,
    vocabularyCoverage: ({ tokenizer }, text) => {
      const { known, unknown } = tokenizer.encodePrefix(text, USE_LITE_MAX_TOKENS);
      return known + unknown === 0 ? undefined : known / (known + unknown);
    },
    release: ({ session }) => session.release(),
  });
}

/** The options with their defaults, checked: what every load and embed of one embedder reads. */
interface UseLiteSettings {
  readonly dtype: UseLiteDtype;
  readonly variant: UseLiteVariant;
  readonly batchSize: number;
  readonly loader: ModelFileLoader;
  readonly requested: UseLiteDevice;
  readonly warn: (message: string) => void;
}

/** Read once, at construction: a bad variant is a TypeError there, not at the first embed. */
function useLiteSettings(options: UseLiteOptions): UseLiteSettings {
  const defaults = {
    dtype: 'int8' as UseLiteDtype,
    variant: 'base' as UseLiteVariant,
    batchSize: 32,
    fetch: defaultModelLoader,
    device: 'auto' as UseLiteDevice,
    onWarning: (message: string) => console.warn(message),
  };
  const {
    dtype,
    variant,
    fetch: loader,
    device: requested,
    onWarning: warn,
    ...rest
  } = mergeOptions(defaults, options);
  if (variant !== 'base' && variant !== 'tools')
    throw new TypeError(`use-lite: variant must be 'base' or 'tools', got ${String(variant)}`);
  return { dtype, variant, batchSize: Math.max(1, Math.floor(rest.batchSize)), loader, requested, warn };
}

/**
 * One load, timed by phase: the device plan (onnxruntime-web starts now), the vocabulary and the
 * model (together), the tokenizer, the session, and one warm-up run.
 */
async function loadUseLite(options: UseLiteOptions, settings: UseLiteSettings): Promise<Loaded> {
  const { dtype, variant, loader, requested, warn } = settings;
  const started = performance.now();
  const request = { requested, wasmPaths: options.wasmPaths, numThreads: options.numThreads, warn };
  // The vocabulary, the model and the runtime all start at once: on a page each is a separate
  // download, and the runtime's start-up (its WASM compile and threads) needs no model, so it
  // runs while the model downloads instead of after.
  const plan = planSession(request, started);
  const { vocab, model } = await readModelFolder(
    {
      modelPath: options.modelPath,
      loader,
      warn,
      onModelBytes: (done, total) => options.onProgress?.({ phase: 'load', done, total }),
    },
    useLiteModelFile(variant, dtype),
  );
  const filesDone = performance.now();
  const tokenizer = createUseLiteTokenizer(JSON.parse(new TextDecoder().decode(vocab)) as UseLiteVocabEntry[]);
  const tokenizerDone = performance.now();
  const { device, Tensor, session, numThreads, fallbackReason } = await createUseLiteSession(model, request, plan);
  const sessionDone = performance.now();
  // One short run before reporting ready: a session's first run pays for buffer allocation
  // and kernel set-up (100+ ms natively, shader compiles on WebGPU), which belongs to the
  // load, not to the user's first prompt.
  await runUseLiteBatch({ Tensor, session }, [tokenizeUseLite(tokenizer, 'ready')]);
  const done = performance.now();
  const backend: UseLiteBackend = {
    device,
    dtype,
    variant,
    numThreads,
    ...(fallbackReason ? { fallbackReason } : {}),
    loadMs: done - started,
    loadPhases: {
      files: filesDone - started,
      tokenizer: tokenizerDone - filesDone,
      session: sessionDone - tokenizerDone,
      warmUp: done - sessionDone,
      runtime: (await plan.runtime) ?? 0,
    },
    modelBytes: model.byteLength,
  };
  return { Tensor, session, tokenizer, backend };
}
