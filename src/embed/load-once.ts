import type { EmbedOptions, LoadableEmbedder } from './embedder.js';
import { taskQueue } from './one-at-a-time.js';

/**
 * A model (or any costly resource) that loads once: the first `get()` starts the load and
 * every later call shares it; a load that fails is forgotten, so a later call retries (the
 * server may have come up meanwhile); `reset()` forgets a loaded one and hands it back so the
 * caller can release it.
 *
 * @example
 * const model = loadOnce(() => ort.InferenceSession.create(bytes))
 * const session = await model.get()
 * model.value // the session, once loaded
 * await (await model.reset())?.release()
 */
export interface LoadOnce<T> {
  get(): Promise<T>;
  /** What loaded, or undefined before (and after a reset). */
  readonly value: T | undefined;
  /** Forget what loaded (or is loading): resolves to it (undefined if none, or the load failed). */
  reset(): Promise<T | undefined>;
}

/** {@link LoadOnce} over `load`. */
export function loadOnce<T>(load: () => Promise<T>): LoadOnce<T> {
  let loading: Promise<T> | undefined;
  let value: T | undefined;
  return {
    get() {
      loading ??= load().then(
        (result) => {
          value = result;
          return result;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
    get value() {
      return value;
    },
    async reset() {
      const current = loading;
      loading = undefined;
      value = undefined;
      return current?.catch(() => undefined);
    },
  };
}

/** Runs model calls one at a time, in the order they were given (see {@link loadableEmbedder}). */
export type ModelCallQueue = <T>(call: () => Promise<T>) => Promise<T>;

/** What {@link loadableEmbedder} builds an embedder from. */
export interface LoadableEmbedderParts<Model extends { readonly backend: Backend }, Backend> {
  readonly id: string;
  /** The vector size (it may be known only once the model has loaded). */
  dimensions(): number;
  readonly model: LoadOnce<Model>;
  /**
   * Embed with the model, each model call passed through `modelCall`: calls run one at a time
   * in the order they were queued, so one session never runs two batches at once, and embeds
   * that overlap take turns call by call (a short query waits for the call in progress, not for
   * every batch of a long text list queued before it).
   */
  embed(
    texts: readonly string[],
    options: EmbedOptions | undefined,
    modelCall: ModelCallQueue,
  ): Promise<Float32Array[]>;
  /**
   * How much of a text the model's vocabulary covers, 0 to 1 (see `Embedder.vocabularyCoverage`);
   * asked only once the model has loaded.
   */
  vocabularyCoverage?(model: Model, text: string): number | undefined;
  /** Free a loaded model on `dispose()`. */
  release(model: Model): Promise<void> | void;
}

/**
 * A {@link LoadableEmbedder} over a model that loads once: `backend` and `load()` read the
 * model, `embed` runs one model call at a time (overlapping embeds interleave their calls),
 * `dispose()` forgets and releases it (the next call loads again).
 *
 * @example
 * const model = loadOnce(async () => ({ session: await createSession(), backend: { device: 'wasm' } }))
 * return loadableEmbedder({ id: 'my-model/mean', dimensions: () => 384, model, embed, release: (m) => m.session.release() })
 */
export function loadableEmbedder<Model extends { readonly backend: Backend }, Backend>(
  parts: LoadableEmbedderParts<Model, Backend>,
): LoadableEmbedder<Backend> {
  const { model } = parts;
  const modelCall = taskQueue();
  return {
    id: parts.id,
    get dimensions() {
      return parts.dimensions();
    },
    get backend() {
      return model.value?.backend;
    },
    async load() {
      return (await model.get()).backend;
    },
    embed: (texts: readonly string[], options?: EmbedOptions) => parts.embed(texts, options, modelCall),
    ...(parts.vocabularyCoverage
      ? {
          vocabularyCoverage(text: string): number | undefined {
            const loaded = model.value;
            return loaded ? parts.vocabularyCoverage?.(loaded, text) : undefined;
          },
        }
      : {}),
    async dispose() {
      const loaded = await model.reset();
      if (loaded) await parts.release(loaded);
    },
  };
}
