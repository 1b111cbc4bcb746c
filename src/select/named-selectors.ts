import type { Embedder } from '../embed/embedder.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { mergeOptions } from '../options.js';
import { DEFAULT_K } from '../rank/top-k.js';
import { Bm25Selector } from './bm25-selector.js';
import type { EmbeddingSelectorOptions } from './embedding-selector.js';
import { EmbeddingSelector } from './embedding-selector.js';
import { HybridSelector } from './hybrid-selector.js';
import { KeywordSelector } from './keyword-selector.js';
import type { AsyncToolSelector } from './selector.js';
import { StaticSelector } from './static-selector.js';

/** Where the dense selectors get their model: an embedder, or a lazy (async) factory called once. */
export type EmbedderSource = Embedder | (() => Embedder | Promise<Embedder>);

/** What a named selector is built from. */
export interface NamedSelectorSpec {
  /** The ranked selectors' k. */
  readonly k: number;
  /**
   * The shared embedding selector (loaded on first call): every dense selector of a table
   * derives from it, so all of them share one warm corpus.
   */
  readonly embedding: () => Promise<EmbeddingSelector>;
}

/** Builds one selector by name. */
export type NamedSelectorFactory = (spec: NamedSelectorSpec) => AsyncToolSelector | Promise<AsyncToolSelector>;

/** A selector name no table entry answers to. */
export class UnknownSelectorError extends Error {
  override readonly name = 'UnknownSelectorError';
  constructor(
    readonly selector: string,
    readonly known: readonly string[],
  ) {
    super(`unknown selector "${selector}" (known: ${known.join(', ')})`);
  }
}

/** A dense selector was asked for where no embedder is configured, or the model failed to load. */
export class SelectorUnavailableError extends Error {
  override readonly name = 'SelectorUnavailableError';
}

/** Options for {@link namedSelectors}. Every field has a default. */
export interface NamedSelectorsOptions {
  /** Enables the dense selectors (`embedding*`, `hybrid*`). Without it they are unavailable. */
  embedder?: EmbedderSource;
  /** Where corpus vectors persist (IndexedDB, Workers KV, a file). Default in memory. */
  cache?: VectorCache;
  /** More settings for the shared embedding selector (progress, batch size, timeout). */
  embeddingOptions?: Omit<EmbeddingSelectorOptions, 'topK' | 'cache'>;
  /** k when a caller names none. Default {@link DEFAULT_K}. */
  defaultK?: number;
  /**
   * Extra or replacement entries, merged over the built-in ones. An entry that needs the
   * embedder (it calls `spec.embedding()`) is named `embedding…` or `hybrid…`, like the
   * built-in dense ones: that is how the table tells dense entries apart ({@link NamedSelectors.isDense}).
   */
  extra?: Readonly<Record<string, NamedSelectorFactory>>;
  /** Told when the embedder fails to load (the thrown error stays generic). */
  onError?: (error: unknown) => void;
}

/** A table of selectors by name, each built once per k and reused. */
export interface NamedSelectors {
  readonly names: readonly string[];
  /** The selector called `name` at `k` (default `defaultK`); rejects with a typed error. */
  get(name: string, k?: number): Promise<AsyncToolSelector>;
  /** Whether `name` needs an embedder: the entries named `embedding…` or `hybrid…`. */
  isDense(name: string): boolean;
  /** Whether `name`'s output size follows k (static, plain keyword and adaptive ones ignore it). */
  usesK(name: string): boolean;
}

/** The built-in entries, by name. Dense ones derive from the shared embedding selector. */
// Pure: bundlers may then drop the table (and every selector class it names) from apps that never use it.
export const BUILT_IN_SELECTORS: Readonly<Record<string, NamedSelectorFactory>> = /* @__PURE__ */ Object.freeze({
  static: () => new StaticSelector(),
  keyword: () => new KeywordSelector(),
  'keyword-ranked': ({ k }: NamedSelectorSpec) => new KeywordSelector({ topK: k }),
  bm25: ({ k }: NamedSelectorSpec) => new Bm25Selector({ topK: k }),
  embedding: async ({ k, embedding }: NamedSelectorSpec) => (await embedding()).withTopK(k),
  'embedding-adaptive': async ({ embedding }: NamedSelectorSpec) =>
    (await embedding()).withTopK(16).withAdaptive({ floor: 3, ceiling: 16, span: 0.7 }),
  hybrid: async ({ k, embedding }: NamedSelectorSpec) => new HybridSelector(await embedding(), { topK: k }),
  'hybrid-adaptive': async ({ embedding }: NamedSelectorSpec) =>
    new HybridSelector(await embedding(), { adaptive: true }),
});

const IGNORES_K = new Set(['static', 'keyword', 'embedding-adaptive', 'hybrid-adaptive']);
// The one rule for which entries need the embedder (the proxy and the API ask the table).
const DENSE_NAME = /^(?:embedding|hybrid)/;

/**
 * The one table of selectors by name, used by the worker, the CLI and the demo page: `static`,
 * `keyword`, `keyword-ranked`, `bm25`, `embedding`, `embedding-adaptive`, `hybrid`,
 * `hybrid-adaptive`, plus any `extra`. Each (name, k) is built once and memoised, and every
 * dense selector shares one embedding selector, so a busy server reuses one warm corpus.
 *
 * @example
 * const table = namedSelectors({ embedder: () => useLiteEmbedder({ modelPath }), cache })
 * const selector = await table.get('hybrid', 8)
 * const selection = await runSelection(selector, ctx, registry.schemas(), { signal })
 */
export function namedSelectors(options: NamedSelectorsOptions = {}): NamedSelectors {
  const { defaultK, embedder, cache, extra, onError, embeddingOptions } = mergeOptions(
    { defaultK: DEFAULT_K },
    options,
  );
  const factories: Record<string, NamedSelectorFactory> = { ...BUILT_IN_SELECTORS, ...extra };
  const names = Object.keys(factories);

  let base: Promise<EmbeddingSelector> | undefined;
  const embedding = (): Promise<EmbeddingSelector> => {
    if (!embedder) {
      return Promise.reject(
        new SelectorUnavailableError(
          'the dense selectors (embedding, hybrid) need an embedder, and none is configured',
        ),
      );
    }
    base ??= (async () => {
      const model = typeof embedder === 'function' ? await embedder() : embedder;
      return new EmbeddingSelector(model, mergeOptions(embeddingOptions ?? {}, { topK: defaultK, cache }));
    })().catch((error: unknown) => {
      base = undefined; // A later call may retry the load.
      onError?.(error);
      throw new SelectorUnavailableError('the embedding model failed to load', { cause: error });
    });
    return base;
  };

  const memo = new Map<string, Promise<AsyncToolSelector>>();
  return {
    names,
    isDense: (name) => DENSE_NAME.test(name),
    usesK: (name) => !IGNORES_K.has(name),
    get(name, k = defaultK) {
      const factory = Object.hasOwn(factories, name) ? factories[name] : undefined;
      if (!factory) return Promise.reject(new UnknownSelectorError(name, names));
      const key = `${name}:${k}`;
      let selector = memo.get(key);
      if (!selector) {
        selector = Promise.resolve().then(() => factory({ k, embedding }));
        memo.set(key, selector);
        selector.catch(() => memo.delete(key));
      }
      return selector;
    },
  };
}
