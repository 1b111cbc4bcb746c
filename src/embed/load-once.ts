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
