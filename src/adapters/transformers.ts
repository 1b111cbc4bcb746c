/**
 * {@link transformersEmbedder}: any transformers.js feature-extraction model as an embedder
 * (the offline default, USE-lite, is `loopctl/use-lite`). `@huggingface/transformers` is
 * imported lazily, so importing this subpath costs nothing until the first load.
 *
 * @module loopctl/transformers
 */
import type { Embedder, EmbedOptions, EmbedProgress, LoadableEmbedder } from '../embed/embedder.js';
import { loadableEmbedder, loadOnce, type ModelCallQueue } from '../embed/load-once.js';
import { mergeOptions } from '../options.js';
import { configureOrtWasm, hasWebGpuAdapter, type WasmPaths } from './ort-runtime.js';

type Transformers = typeof import('@huggingface/transformers');
type Extractor = Awaited<ReturnType<Transformers['pipeline']>>;

/** Devices a caller may ask for; 'auto' picks WebGPU when an adapter exists. */
export type TransformersDevice = 'auto' | 'wasm' | 'webgpu' | 'cpu';

/** transformers.js weight variants (file suffixes: '' fp32, '_fp16', '_quantized' q8, …). */
export type TransformersDtype = 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'q4f16' | 'bnb4';

/** Options for {@link transformersEmbedder}. */
export interface TransformersEmbedderOptions {
  /** Model id or folder name under `localModelPath`, e.g. `'Xenova/all-MiniLM-L6-v2'`. */
  model: string;
  /** Default `'auto'`. See {@link resolveTransformersDevice} for what each maps to. */
  device?: TransformersDevice;
  /** Weights variant; transformers.js picks its default when omitted. Part of the id. */
  dtype?: TransformersDtype;
  /** Base URL or directory holding `<model>/` folders (sets `env.localModelPath`). */
  localModelPath?: string;
  /** Default false: only local files load unless the caller opts in (sets the global env). */
  allowRemoteModels?: boolean;
  /** onnxruntime-web WASM files served by the app (browsers only; never a CDN). */
  wasmPaths?: WasmPaths;
  /** Output width; if omitted it is detected by {@link TransformersEmbedder.load}. */
  dimensions?: number;
  /** Texts per pipeline call. Default 32, sorted by length to cut padding. */
  batchSize?: number;
  /** Download progress (bytes over all files) and embedding progress (texts). */
  onProgress?: (progress: EmbedProgress) => void;
}

/** What actually runs, for display. */
export interface TransformersBackend {
  readonly requested: TransformersDevice;
  /** The device handed to transformers.js. */
  readonly device: 'wasm' | 'webgpu' | 'cpu';
  /** Runtime behind it: onnxruntime-web in browsers, onnxruntime-node in Node. */
  readonly runtime: 'onnxruntime-web' | 'onnxruntime-node';
  readonly dimensions: number;
  readonly loadMs: number;
}

/**
 * The embedder returned by {@link transformersEmbedder}.
 *
 * @example
 * const embedder: TransformersEmbedder = transformersEmbedder({ model: 'all-MiniLM-L6-v2', localModelPath: '/models/' })
 * const { device, dimensions } = await embedder.load()
 */
export type TransformersEmbedder = LoadableEmbedder<TransformersBackend>;

const isNode = (): boolean =>
  typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined';

/**
 * Maps a requested device to what transformers.js can run here. In browsers: 'auto' is WebGPU
 * when an adapter exists, else WASM; 'cpu' means WASM. In Node transformers.js always runs on
 * onnxruntime-node, whose CPU provider stands in for 'wasm' and 'auto'.
 *
 * @example
 * await resolveTransformersDevice('auto') // 'webgpu' | 'wasm' in browsers, 'cpu' in Node
 */
export async function resolveTransformersDevice(
  device: TransformersDevice = 'auto',
  env: { node: boolean; webgpu: () => Promise<boolean> } = { node: isNode(), webgpu: hasWebGpuAdapter },
): Promise<'wasm' | 'webgpu' | 'cpu'> {
  if (device === 'webgpu') return 'webgpu';
  if (device === 'auto' && (await env.webgpu())) return 'webgpu';
  return env.node ? 'cpu' : 'wasm';
}

/**
 * Any transformers.js feature-extraction model as an {@link Embedder}, mean-pooled and
 * L2-normalised. Remote downloads stay off unless `allowRemoteModels` is set.
 *
 * @example
 * import { transformersEmbedder } from 'loopctl/transformers'
 * const embedder = transformersEmbedder({
 *   model: 'all-MiniLM-L6-v2', localModelPath: '/models/', dtype: 'q8', dimensions: 384, wasmPaths: '/ort/',
 * })
 * const [vector] = await embedder.embed(['book a flight to Lisbon'])
 */
export function transformersEmbedder(options: TransformersEmbedderOptions): TransformersEmbedder {
  const settings = mergeOptions(
    { device: 'auto' as TransformersDevice, batchSize: 32, allowRemoteModels: false },
    options,
  );
  const requested = settings.device;
  const batchSize = Math.max(1, Math.floor(settings.batchSize));
  const load = async (): Promise<{ extractor: Extractor; backend: TransformersBackend }> => {
    const started = performance.now();
    const device = await resolveTransformersDevice(requested);
    const transformers = await import('@huggingface/transformers');
    const { env } = transformers;
    env.allowRemoteModels = settings.allowRemoteModels;
    if (options.localModelPath !== undefined) {
      env.allowLocalModels = true;
      env.localModelPath = options.localModelPath;
    }
    // transformers.js points onnxruntime-web at jsDelivr on import; use app-served files instead.
    const onnx = env.backends.onnx as { wasm?: { wasmPaths?: unknown; numThreads?: number } } | undefined;
    if (!isNode() && onnx?.wasm) await configureOrtWasm({ wasm: onnx.wasm }, { wasmPaths: options.wasmPaths });

    const extractor = await transformers.pipeline('feature-extraction', options.model, {
      device,
      ...(options.dtype ? { dtype: options.dtype } : {}),
      progress_callback: (info: { status: string; loaded?: number; total?: number }) => {
        if (info.status === 'progress_total' && typeof info.loaded === 'number' && typeof info.total === 'number') {
          options.onProgress?.({ phase: 'load', done: info.loaded, total: info.total });
        }
      },
    });
    const probe = await runPipeline(extractor, ['dimension probe']);
    const detected = probe[0]?.length ?? 0;
    if (options.dimensions !== undefined && options.dimensions !== detected) {
      throw new Error(
        `transformersEmbedder: ${options.model} yields ${detected} dimensions, not ${options.dimensions}`,
      );
    }
    return {
      extractor,
      backend: {
        requested,
        device,
        runtime: isNode() ? 'onnxruntime-node' : 'onnxruntime-web',
        dimensions: detected,
        loadMs: performance.now() - started,
      },
    };
  };

  const model = loadOnce(load);

  const embed = async (
    texts: readonly string[],
    { signal }: EmbedOptions = {},
    modelCall: ModelCallQueue,
  ): Promise<Float32Array[]> => {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const { extractor } = await model.get();
    // Length is a cheap proxy for token count: similar texts share a batch, less padding.
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a]?.length ?? 0) - (texts[b]?.length ?? 0));
    const out: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const slice = order.slice(start, start + batchSize);
      const vectors = await modelCall(() => {
        signal?.throwIfAborted();
        return runPipeline(
          extractor,
          slice.map((i) => texts[i] ?? ''),
        );
      });
      slice.forEach((index, k) => {
        out[index] = vectors[k] as Float32Array;
      });
      options.onProgress?.({ phase: 'corpus', done: Math.min(start + batchSize, texts.length), total: texts.length });
    }
    return out;
  };

  return loadableEmbedder({
    id: `${options.model}/${options.dtype ?? 'default'}/mean`,
    dimensions: () => options.dimensions ?? model.value?.backend.dimensions ?? 0,
    model,
    // One session runs one batch at a time: every call goes through the embedder's one queue.
    embed,
    release: async ({ extractor }) => {
      await (extractor as { dispose?: () => Promise<void> }).dispose?.();
    },
  });
}

/** One pipeline call: mean pooling + L2 norm, split into one Float32Array per text. */
async function runPipeline(extractor: Extractor, texts: string[]): Promise<Float32Array[]> {
  const run = extractor as unknown as (
    input: string[],
    options: { pooling: 'mean'; normalize: true },
  ) => Promise<{ data: ArrayLike<number>; dims: number[]; dispose?: () => void }>;
  const tensor = await run(texts, { pooling: 'mean', normalize: true });
  const width = tensor.dims[tensor.dims.length - 1] ?? 0;
  const data = Float32Array.from(tensor.data as ArrayLike<number>);
  tensor.dispose?.();
  return texts.map((_, i) => data.slice(i * width, (i + 1) * width));
}
