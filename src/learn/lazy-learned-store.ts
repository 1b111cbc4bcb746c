/**
 * A dense selector's door into learning: the {@link LearnedStore} behind it loads on first use
 * (the first ranking or `learn` call), so importing loopctl does not load the example memory,
 * the query projection and their codec.
 */
import type { VectorCache } from '../embed/vector-cache.js';
import type { LearnedVoteOptions } from './example-memory.js';
import type { LearnedStore } from './learned-store.js';

/**
 * The learned-examples store of one selector, loaded on first use and shared by its derived
 * copies. `store` is undefined until `load()` has resolved once.
 *
 * @example
 * const learning = new LazyLearnedStore(memoryVectorCache(), embedder, undefined)
 * const store = await learning.load()
 * learning.store?.votes(queryVector, all)
 */
export class LazyLearnedStore {
  store: LearnedStore | undefined;
  #loading: Promise<LearnedStore> | undefined;
  constructor(
    readonly cache: VectorCache,
    readonly embedder: { readonly id: string; readonly dimensions: number },
    readonly options: LearnedVoteOptions | undefined,
  ) {}

  load(): Promise<LearnedStore> {
    this.#loading ??= import('./learned-store.js').then(({ LearnedStore }) => {
      this.store = new LearnedStore(this.cache, this.embedder, this.options);
      return this.store;
    });
    return this.#loading;
  }
}
