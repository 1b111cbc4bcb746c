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

import { concatBytes } from '../concat-bytes.js';
import { errorMessage } from '../describe-error.js';
import type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from '../embed/embedder.js';
import { lengthBuckets } from '../embed/length-buckets.js';
import { loadableEmbedder, loadOnce, type ModelCallQueue } from '../embed/load-once.js';
import { mergeOptions } from '../options.js';
import { createNativeSession, importOrtNode, nativeUnavailableReason } from './ort-native.js';
import {
  configureOrtWasm,
  importOrt,
  isNode,
  nodeImport,
  type Ort,
  type OrtDevice,
  pickDevice,
  startOrtBackend,
  type WasmPaths,
} from './ort-runtime.js';
import { createUseLiteTokenizer, type UseLiteTokenizer, type UseLiteVocabEntry } from './use-lite-tokenizer.js';

export type { OrtDevice, WasmPaths } from './ort-runtime.js';
export { configureOrtWasm, hasWebGpuAdapter, pickDevice } from './ort-runtime.js';
export type { UseLiteTokenizer, UseLiteVocabEntry } from './use-lite-tokenizer.js';
export { createUseLiteTokenizer, normalizeUseLite } from './use-lite-tokenizer.js';

type OrtSession = import('onnxruntime-web').InferenceSession;

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

/**
 * Where to run. `'native'`: onnxruntime-node's CPU kernels (Node only; an optional peer
 * dependency). `'wasm'`: onnxruntime-web on the CPU, any runtime. `'webgpu'`: onnxruntime-web on
 * the GPU. `'auto'`: native in Node when onnxruntime-node loads, else WebGPU when an adapter
 * exists, else WASM.
 */
export type UseLiteDevice = OrtDevice | 'native';

/** Loads one file of the model folder; the default is `fetch`, or `node:fs` for local paths. */
export type ModelFileLoader = (url: string, init?: { signal?: AbortSignal }) => Promise<Response>;

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

/** Texts longer than this many tokens are clipped, as the TF.js graph does. */
export const USE_LITE_MAX_TOKENS = 128;

/** Output width of USE lite. */
export const USE_LITE_DIMENSIONS = 512;

/**
 * Joins a file name onto the model folder, whether URL, relative URL or filesystem path.
 *
 * @example
 * resolveModelFile('https://app.test/models/use-lite', 'vocab.json')
 * // 'https://app.test/models/use-lite/vocab.json'
 */
export function resolveModelFile(base: string | URL, file: string): string {
  const root = typeof base === 'string' ? base : base.href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(root) && !/^[a-z]:[\\/]/i.test(root)) {
    return new URL(file, root.endsWith('/') ? root : `${root}/`).href;
  }
  return `${root.replace(/[\\/]+$/, '')}/${file}`;
}

async function defaultLoader(url: string, init?: { signal?: AbortSignal }): Promise<Response> {
  const local = url.startsWith('file:') || (isNode() && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url));
  if (local) {
    // Node's fetch does not read file: URLs; read the folder directly.
    const { readFile } = await nodeImport<typeof import('node:fs/promises')>('node:fs/promises');
    const { fileURLToPath } = await nodeImport<typeof import('node:url')>('node:url');
    const bytes = await readFile(
      url.startsWith('file:') ? fileURLToPath(url) : url,
      init?.signal ? { signal: init.signal } : {},
    );
    return new Response(bytes, { headers: { 'content-length': String(bytes.byteLength) } });
  }
  const base = typeof document !== 'undefined' ? document.baseURI : undefined;
  return fetch(base ? new URL(url, base).href : url, init?.signal ? { signal: init.signal } : {});
}

/** Reads a response fully, reporting bytes as they arrive. */
async function readBytes(response: Response, onBytes?: (done: number, total: number) => void): Promise<Uint8Array> {
  if (!response.ok) throw new Error(`use-lite: ${response.url || 'model file'} -> HTTP ${response.status}`);
  const total = Number(response.headers.get('content-length') ?? 0);
  if (!response.body || !onBytes) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let done = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    chunks.push(next.value);
    done += next.value.byteLength;
    onBytes(done, Math.max(total, done));
  }
  onBytes(done, done);
  return concatBytes(chunks, done);
}

/**
 * Model folders already reported unreadable in this process: once per path, so a server that
 * builds a fresh embedder for each retry does not repeat it.
 */
const unreadablePathsTold = new Set<string>();

interface Loaded {
  Tensor: Ort['Tensor'];
  session: OrtSession;
  tokenizer: UseLiteTokenizer;
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
  const defaults = {
    dtype: 'int8' as UseLiteDtype,
    variant: 'base' as UseLiteVariant,
    batchSize: 32,
    fetch: defaultLoader,
    device: 'auto' as UseLiteDevice,
    onWarning: (message: string) => console.warn(message),
  };
  const {
    dtype,
    variant,
    fetch: loader,
    device: requested,
    onWarning: warn,
    ...settings
  } = mergeOptions(defaults, options);
  if (variant !== 'base' && variant !== 'tools')
    throw new TypeError(`use-lite: variant must be 'base' or 'tools', got ${String(variant)}`);
  const batchSize = Math.max(1, Math.floor(settings.batchSize));

  const createSession = async (device: 'wasm' | 'webgpu', model: Uint8Array) => {
    const ort = await importOrt(device);
    await configureOrtWasm(ort.env, { wasmPaths: options.wasmPaths, numThreads: options.numThreads });
    const session = await ort.InferenceSession.create(model, {
      executionProviders: [device],
      // 'basic' is constant folding (which dequantises the int8 weights once, here at load) and
      // the simple fusions: the graph it leaves is the one 'extended'/'all' leave, less one
      // Gemm+Tanh fusion, and building it skips their passes (a shorter session creation).
      graphOptimizationLevel: 'basic',
    });
    const threads = ort.env.wasm.numThreads;
    return { Tensor: ort.Tensor, session, numThreads: typeof threads === 'number' ? threads : undefined };
  };

  const createNative = async (model: Uint8Array) => {
    const ort = await importOrtNode();
    const numThreads = Math.max(1, Math.floor(options.numThreads ?? 1));
    return { Tensor: ort.Tensor, session: await createNativeSession(ort, model, numThreads), numThreads };
  };

  /** The onnxruntime-web path: WebGPU or WASM, with 'auto' and a failed WebGPU session ending on WASM. */
  const createWeb = async (model: Uint8Array, wanted: 'wasm' | 'webgpu') => {
    try {
      return { device: wanted, ...(await createSession(wanted, model)) };
    } catch (error) {
      if (wanted !== 'webgpu' || requested === 'webgpu') throw error;
      // 'auto' found an adapter but the WebGPU session failed: CPU still works.
      const fallbackReason = `webgpu session failed: ${errorMessage(error)}`;
      return { device: 'wasm' as const, fallbackReason, ...(await createSession('wasm', model)) };
    }
  };

  const load = async (): Promise<Loaded> => {
    const started = performance.now();
    const nativeRefused = nativeUnavailableReason();
    if (requested === 'native' && nativeRefused)
      throw new Error(`use-lite: device 'native' needs onnxruntime-node: ${nativeRefused}; use 'wasm' or 'auto'`);
    const file = useLiteModelFile(variant, dtype);
    // The vocabulary, the model and the runtime all start at once: on a page each is a separate
    // download, and the runtime's start-up (its WASM compile and threads) needs no model, so it
    // runs while the model downloads instead of after.
    const web =
      requested === 'native' || (requested === 'auto' && nativeRefused === undefined)
        ? undefined
        : pickDevice(requested);
    // Failures surface later, where the session is created.
    const runtime = web
      ?.then(async (device) => {
        const ort = await importOrt(device);
        await configureOrtWasm(ort.env, { wasmPaths: options.wasmPaths, numThreads: options.numThreads });
        await startOrtBackend(ort, device);
      })
      .catch(() => undefined)
      .then(() => performance.now() - started);
    const [vocab, model] = await Promise.all([
      loader(resolveModelFile(options.modelPath, 'vocab.json')).then((response) => readBytes(response)),
      loader(resolveModelFile(options.modelPath, file)).then((response) =>
        readBytes(response, (done, total) => options.onProgress?.({ phase: 'load', done, total })),
      ),
    ]).catch((error: unknown) => {
      throw modelUnreadable(error);
    });
    const filesDone = performance.now();
    const tokenizer = createUseLiteTokenizer(JSON.parse(new TextDecoder().decode(vocab)) as UseLiteVocabEntry[]);
    const tokenizerDone = performance.now();

    let created: {
      device: UseLiteBackend['device'];
      Tensor: Ort['Tensor'];
      session: OrtSession;
      numThreads: number | undefined;
      fallbackReason?: string;
    };
    if (requested === 'native') {
      try {
        created = { device: 'native', ...(await createNative(model)) };
      } catch (error) {
        throw new Error(`use-lite: ${errorMessage(error)}`);
      }
    } else if (requested === 'auto' && nativeRefused === undefined) {
      try {
        created = { device: 'native', ...(await createNative(model)) };
      } catch (error) {
        // The same vectors come out of WASM, only slower: say so once and carry on.
        const fallbackReason = errorMessage(error);
        warn(`use-lite: ${fallbackReason}; embedding on onnxruntime-web WASM instead (several times slower)`);
        created = { ...(await createWeb(model, 'wasm')), fallbackReason };
      }
    } else {
      const wanted = await (web ?? pickDevice(requested));
      await runtime;
      created = await createWeb(model, wanted);
      if (requested === 'auto' && wanted === 'wasm')
        created.fallbackReason = isNode() ? 'no WebGPU in Node' : 'no WebGPU adapter';
    }
    const { device, Tensor, session, numThreads, fallbackReason } = created;
    const sessionDone = performance.now();
    // One short run before reporting ready: a session's first run pays for buffer allocation
    // and kernel set-up (100+ ms natively, shader compiles on WebGPU), which belongs to the
    // load, not to the user's first prompt.
    await runBatch({ Tensor, session }, [tokenize(tokenizer, 'ready')]);
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
        runtime: (await runtime) ?? 0,
      },
      modelBytes: model.byteLength,
    };
    return { Tensor, session, tokenizer, backend };
  };

  // A folder with no model is a set-up mistake that selectors would only note in their output
  // (falling open, or ranking lexically) on every turn: the console of the process that owns the
  // embedder hears it once, with the path tried and the fix. Clients of a server never see it.
  const modelUnreadable = (error: unknown): Error => {
    const where = typeof options.modelPath === 'string' ? options.modelPath : options.modelPath.href;
    const reason = errorMessage(error);
    if (!unreadablePathsTold.has(where)) {
      unreadablePathsTold.add(where);
      const fix = /^[a-z][a-z0-9+.-]*:\/\//i.test(where)
        ? `build it with npx loopctl model and serve that folder at ${where}`
        : `build it there with npx loopctl model --out ${where}`;
      warn(
        `use-lite: no model at ${where} (${reason}); selectors using this embedder fall open or rank ` +
          `lexically until it loads: ${fix}, or set modelPath to the folder that holds it`,
      );
    }
    return new Error(`use-lite: no model at ${where} (${reason})`, { cause: error });
  };

  // A load that fails is retried by a later call (e.g. after the server comes up).
  const loaded = loadOnce(load);

  /**
   * The first 128 token ids, all the model reads: only the text they come from is tokenized, so
   * a huge prompt costs what its first words cost. An empty text stays empty and is embedded as
   * a masked row.
   */
  const tokenize = (tokenizer: UseLiteTokenizer, text: string): number[] =>
    tokenizer.encodePrefix(text, USE_LITE_MAX_TOKENS).ids;

  const runBatch = async (state: Pick<Loaded, 'Tensor' | 'session'>, rows: number[][]): Promise<Float32Array[]> => {
    const width = Math.max(1, ...rows.map((r) => r.length)); // >= 1 so an all-empty batch is valid
    const ids = new BigInt64Array(rows.length * width); // pad id 0; the mask decides validity
    const mask = new BigInt64Array(rows.length * width);
    rows.forEach((row, i) => {
      row.forEach((id, j) => {
        ids[i * width + j] = BigInt(id);
        mask[i * width + j] = 1n;
      });
    });
    const { Tensor } = state;
    const outputs = await state.session.run({
      input_ids: new Tensor('int64', ids, [rows.length, width]),
      attention_mask: new Tensor('int64', mask, [rows.length, width]),
    });
    const output = outputs.sentence_embedding;
    if (!output) throw new Error('use-lite: model has no sentence_embedding output');
    const data = (await output.getData()) as Float32Array;
    const vectors = rows.map((_, i) => data.slice(i * USE_LITE_DIMENSIONS, (i + 1) * USE_LITE_DIMENSIONS));
    output.dispose();
    return vectors;
  };

  const embed = async (
    texts: readonly string[],
    embedOptions: EmbedOptions = {},
    modelCall: ModelCallQueue,
  ): Promise<Float32Array[]> => {
    const { signal } = embedOptions;
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const state = await loaded.get();
    signal?.throwIfAborted();
    const tokens = texts.map((text) => tokenize(state.tokenizer, text));
    // Similar lengths share a batch, so little compute is spent on padding. On a CPU a call
    // costs about its padded tokens (one full-length text ≈ 15 ms on one core, 32 tool texts
    // ≈ 70 ms) and holds the thread throughout, so a call carries at most one full-length
    // text's worth: other requests run between calls, and throughput is the same. A GPU call
    // costs its dispatch more than its tokens: there batches stay wide.
    const batches = lengthBuckets(
      tokens.map((row) => row.length),
      {
        maxRows: batchSize,
        maxTokens:
          state.backend.device === 'webgpu' ? Math.max(batchSize, 16) * USE_LITE_MAX_TOKENS : USE_LITE_MAX_TOKENS,
      },
    );
    const result: Float32Array[] = new Array(texts.length);
    let done = 0;
    for (const slice of batches) {
      const vectors = await modelCall(() => {
        signal?.throwIfAborted();
        return runBatch(
          state,
          slice.map((i) => tokens[i] ?? []),
        );
      });
      slice.forEach((index, k) => {
        result[index] = vectors[k] as Float32Array;
      });
      done += slice.length;
      options.onProgress?.({ phase: 'corpus', done, total: texts.length });
    }
    return result;
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
