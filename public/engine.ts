/**
 * The demo's engine: one embedder, one IndexedDB vector cache, and the selectors the page
 * compares (keyword, BM25, embedding, and hybrid once `src/select/hybrid-selector.ts` lands),
 * all over the same tool list. The page renders what this returns; tests read it through
 * `window.__loopctl`.
 */
import { idbVectorCache } from '../src/adapters/idb.js';
import type { UseLiteBackend, UseLiteDevice, UseLiteDtype, UseLiteEmbedder } from '../src/adapters/use-lite.js';
import { useLiteEmbedder } from '../src/adapters/use-lite.js';
import type { CorpusStats } from '../src/embed/corpus-index.js';
import type { VectorCache } from '../src/embed/vector-cache.js';
import { applySelection } from '../src/select/apply-selection.js';
import { Bm25Selector } from '../src/select/bm25-selector.js';
import { EmbeddingSelector } from '../src/select/embedding-selector.js';
import { KeywordSelector } from '../src/select/keyword-selector.js';
import type { AsyncToolSelector, SelectionContext, SelectorOutput, ToolSelector } from '../src/select/selector.js';
import type { ToolSchema } from '../src/registry/schema.js';
import { toolsCost } from '../src/registry/tool-cost.js';
import { approxTokenCounter } from '../src/tokens/token-counter.js';
import { loadHybrid, type HybridFactory } from './hybrid.js';

/** The selectors the page compares, in display order. */
export type SelectorId = 'keyword' | 'bm25' | 'embedding' | 'hybrid';

/** One advertised tool and the evidence behind it. */
export interface RankedTool {
  readonly name: string;
  readonly score?: number;
  readonly matched?: readonly string[];
  readonly core?: boolean;
}

/** What one selector advertises for the prompt. */
export interface SelectorResult {
  readonly id: SelectorId;
  readonly label: string;
  /** Advertised names, registry order (what the request would carry). */
  readonly names: readonly string[];
  /** The same tools ranked best first, with scores and matched words. */
  readonly ranked: readonly RankedTool[];
  readonly fellOpen?: string;
  readonly warnings: readonly string[];
  /** Wall time of this selector's call (the query embedding included). */
  readonly ms: number;
  /** Schema tokens the advertised tools cost (approximate: 4 UTF-8 bytes per token). */
  readonly tokens: number;
}

/** Where the corpus vectors of the current tool list came from. */
export interface CorpusInfo {
  /**
   * `shipped`: from the precomputed vectors file served with the page; `idb`: read from
   * IndexedDB; `embedded`: computed now (all or some); `memory`: already loaded this session.
   */
  readonly source: 'shipped' | 'idb' | 'embedded' | 'memory';
  /** Tool texts embedded for this load (0 on a cache hit or with shipped vectors). */
  readonly corpusEmbeds: number;
  /** Tool texts taken from the shipped vectors file for this load. */
  readonly seeded: number;
  /** What went wrong with the shipped vectors or the cache (a refused file, a write failure). */
  readonly warnings: readonly string[];
  readonly cacheHits: number;
  readonly cacheMisses: number;
  readonly tools: number;
  /** Wall time of the corpus load (one query embedding rides along). */
  readonly ms: number;
}

/** Progress of the slow steps, for the progress bar. */
export interface EngineProgress {
  readonly phase: 'runtime' | 'load' | 'corpus';
  readonly done: number;
  readonly total: number;
}

/** Options for {@link DemoEngine}. */
export interface EngineOptions {
  readonly device: UseLiteDevice;
  readonly dtype: UseLiteDtype;
  readonly k: number;
  /** Base URL the model folder and ORT files are served under (the page's own). */
  readonly baseURI: string;
  /** The demo registry's precomputed vectors (relative to `baseURI`); `null` for none. Default `vectors/demo.lcv`. */
  readonly vectorsPath?: string | null;
  readonly onProgress?: (progress: EngineProgress) => void;
}

const LABELS: Record<SelectorId, string> = {
  keyword: 'Keyword',
  bm25: 'BM25',
  embedding: 'Embedding',
  hybrid: 'Hybrid',
};

/** The IndexedDB database the demo keeps corpus vectors in (dedicated, as idb-keyval needs). */
export const DEMO_IDB_NAME = 'loopctl-demo';

/** Build a selection context whose opening prompt is `prompt`. */
export function promptContext(prompt: string): SelectionContext {
  return { turn: 1, latestUserMessage: prompt, conversation: [{ role: 'user', content: prompt }] };
}

/**
 * Owns the embedder and selectors. Create it, `load()` the model, `setTools()` a list (which
 * loads or embeds its corpus), then `select(prompt)` as often as the prompt changes.
 *
 * @example
 * const engine = new DemoEngine({ device: 'auto', dtype: 'int8', k: 6, baseURI: document.baseURI })
 * await engine.load()
 * await engine.setTools(DEMO_TOOLS)
 * const results = await engine.select('weather in Paris tomorrow')
 */
export class DemoEngine {
  readonly embedder: UseLiteEmbedder;
  readonly cache: VectorCache;
  readonly keyword = new KeywordSelector();
  #options: EngineOptions;
  #embedding: EmbeddingSelector;
  #bm25: Bm25Selector;
  #hybridFactory: HybridFactory | undefined;
  #hybrid: AsyncToolSelector | ToolSelector | undefined;
  #tools: readonly ToolSchema[] = [];

  constructor(options: EngineOptions) {
    this.#options = options;
    const onProgress = options.onProgress;
    this.embedder = useLiteEmbedder({
      modelPath: new URL('models/use-lite/', options.baseURI).href,
      // The app serves onnxruntime-web's files itself: never a CDN.
      wasmPaths: new URL('ort/', options.baseURI).href,
      device: options.device,
      dtype: options.dtype,
      // A cross-origin-isolated page may run WASM threads: use the cores (ORT's own default is half).
      numThreads: wasmThreads(),
      // Corpus progress comes from the selector (it knows the corpus size); queries stay quiet.
      onProgress: (p) => {
        if (p.phase === 'load') onProgress?.(p);
      },
    });
    this.cache = idbVectorCache({ dbName: DEMO_IDB_NAME, storeName: 'vectors' });
    const vectorsPath = options.vectorsPath === undefined ? 'vectors/demo.lcv' : options.vectorsPath;
    this.#embedding = new EmbeddingSelector(this.embedder, {
      topK: options.k,
      cache: this.cache,
      // Fetched now, alongside the model load; used on the first corpus build that needs a text
      // (IndexedDB is asked first).
      ...(vectorsPath ? { vectors: prefetch(new URL(vectorsPath, options.baseURI)) } : {}),
      // Smaller corpus batches than the default 64: the progress bar moves every 16 tools.
      batchSize: 16,
      ...(onProgress ? { onProgress: (p) => onProgress(p) } : {}),
    });
    this.#bm25 = new Bm25Selector({ topK: options.k });
  }

  /** The backend in use, once loaded. */
  get backend(): UseLiteBackend | undefined {
    return this.embedder.backend;
  }

  /** The current tool list. */
  get tools(): readonly ToolSchema[] {
    return this.#tools;
  }

  /** Corpus counters since the page loaded. */
  get stats(): CorpusStats {
    return this.#embedding.stats;
  }

  /** Tools advertised per turn by the ranked selectors. */
  get k(): number {
    return this.#options.k;
  }

  /** Whether the hybrid selector has landed in this build. */
  get hasHybrid(): boolean {
    return this.#hybrid !== undefined;
  }

  /** The selectors as the loop would install them, by id (for the chat panel). */
  selector(id: SelectorId): ToolSelector | AsyncToolSelector | undefined {
    switch (id) {
      case 'keyword':
        return this.keyword;
      case 'bm25':
        return this.#bm25;
      case 'embedding':
        return this.#embedding;
      case 'hybrid':
        return this.#hybrid;
    }
  }

  /** Load the runtime, tokenizer and model (idempotent). */
  async load(): Promise<UseLiteBackend> {
    this.#options.onProgress?.({ phase: 'runtime', done: 0, total: 0 });
    const [backend, factory] = await Promise.all([this.embedder.load(), loadHybrid()]);
    this.#hybridFactory = factory;
    this.#hybrid = factory?.(this.#embedding, this.#options.k);
    return backend;
  }

  /** Change k for the ranked selectors; the corpus stays loaded. */
  setK(k: number): void {
    this.#options = { ...this.#options, k };
    this.#embedding = this.#embedding.withTopK(k);
    this.#bm25 = this.#bm25.withTopK(k);
    this.#hybrid = this.#hybridFactory?.(this.#embedding, k);
  }

  /**
   * Switch to a tool list and make its corpus vectors ready: from memory, from IndexedDB, or
   * by embedding them (with progress).
   */
  async setTools(tools: readonly ToolSchema[], warmQuery = 'warm up'): Promise<CorpusInfo> {
    this.useTools(tools);
    const before = this.#embedding.stats;
    const started = performance.now();
    const ranked = await this.#embedding.scoreTools(warmQuery, tools);
    if (!ranked.ok) throw new Error(`corpus could not load: ${ranked.reason}`);
    const ms = performance.now() - started;
    const after = this.#embedding.stats;
    const corpusEmbeds = after.corpusEmbeds - before.corpusEmbeds;
    const cacheHits = after.cacheHits - before.cacheHits;
    const seeded = after.seededTexts - before.seededTexts;
    return {
      source: corpusEmbeds > 0 ? 'embedded' : seeded > 0 ? 'shipped' : cacheHits > 0 ? 'idb' : 'memory',
      corpusEmbeds,
      seeded,
      warnings: ranked.warnings,
      cacheHits,
      cacheMisses: after.cacheMisses - before.cacheMisses,
      tools: tools.length,
      ms,
    };
  }

  /** Switch the tool list without loading its corpus (the lexical selectors need none). */
  useTools(tools: readonly ToolSchema[]): void {
    this.#tools = tools;
  }

  /** Run every selector on `prompt` over the current tools. Rejects with AbortError when aborted. */
  async select(prompt: string, signal?: AbortSignal, include: readonly SelectorId[] = ['keyword', 'bm25', 'embedding', 'hybrid']): Promise<SelectorResult[]> {
    const all = this.#tools;
    const wanted = new Set(include);
    const ctx = promptContext(prompt);
    const options = { signal: signal ?? new AbortController().signal };
    const results: SelectorResult[] = [];
    const run = async (id: SelectorId, call: () => SelectorOutput | Promise<SelectorOutput>): Promise<void> => {
      const started = performance.now();
      const output = await call();
      results.push(describeOutput(id, output, all, performance.now() - started));
    };
    if (wanted.has('keyword')) await run('keyword', () => this.keyword.selectDetailed(ctx, all));
    if (wanted.has('bm25')) await run('bm25', () => this.#bm25.selectDetailed(ctx, all));
    if (wanted.has('embedding')) await run('embedding', () => this.#embedding.selectDetailed(ctx, all, options));
    const hybrid = this.#hybrid;
    if (hybrid && wanted.has('hybrid')) await run('hybrid', () => detailed(hybrid, ctx, all, options));
    return results;
  }

  /** Embed texts directly (for the browser benchmark): wall time of one call. */
  async timeEmbed(texts: readonly string[]): Promise<number> {
    const started = performance.now();
    await this.embedder.embed(texts);
    return performance.now() - started;
  }
}

/** Start fetching now; the selector awaits the response when it first needs it (errors become its warning). */
function prefetch(url: URL): () => Promise<Response> {
  const response = fetch(url);
  response.catch(() => undefined);
  return () => response;
}

/** Threads for onnxruntime-web: every core (up to 4) when the page is cross-origin isolated, else 1. */
function wasmThreads(): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  return globalThis.crossOriginIsolated ? Math.max(1, Math.min(4, cores)) : 1;
}

async function detailed(
  selector: AsyncToolSelector | ToolSelector,
  ctx: SelectionContext,
  all: readonly ToolSchema[],
  options: { signal: AbortSignal },
): Promise<SelectorOutput> {
  // Sync selectors ignore the third argument; async ones take the signal.
  const any = selector as AsyncToolSelector;
  if (any.selectDetailed) return any.selectDetailed(ctx, all, options);
  return { tools: await any.select(ctx, all, options) };
}

/** Apply the selection contract and rank the advertised tools for display. */
function describeOutput(id: SelectorId, output: SelectorOutput, all: readonly ToolSchema[], ms: number): SelectorResult {
  const selection = applySelection(output, all);
  const ranked: RankedTool[] = selection.tools.map((tool) => {
    const reason = selection.reasons[tool.name];
    return {
      name: tool.name,
      ...(reason?.score !== undefined ? { score: reason.score } : {}),
      ...(reason?.matched ? { matched: [...new Set(reason.matched)] } : {}),
      ...(reason?.core ? { core: true } : {}),
    };
  });
  // Best first; core-only tools (no score) last; ties keep registry order.
  ranked.sort((a, b) => {
    if (a.score === undefined || b.score === undefined) return a.score === undefined ? (b.score === undefined ? 0 : 1) : -1;
    return b.score - a.score;
  });
  return {
    id,
    label: LABELS[id],
    names: selection.names,
    ranked,
    ...(selection.fellOpen ? { fellOpen: selection.fellOpen } : {}),
    warnings: selection.warnings,
    ms,
    tokens: toolsCost(selection.tools, approxTokenCounter),
  };
}
