/**
 * The demo's engine: one embedder, one IndexedDB vector cache, and the selectors the page
 * compares (keyword, BM25, embedding, hybrid) taken from the library's named-selector table,
 * all over the same tool list. The page renders what this returns; tests read it through
 * `window.__loopctl`.
 */
import { idbVectorCache } from '../src/adapters/idb.js';
import type { UseLiteBackend, UseLiteDevice, UseLiteDtype, UseLiteEmbedder } from '../src/adapters/use-lite.js';
import { useLiteEmbedder } from '../src/adapters/use-lite.js';
import type {
  AsyncToolSelector,
  CorpusStats,
  EmbeddingSelector,
  SelectionContext,
  ToolSchema,
  VectorCache,
} from '../src/index.js';
import { approxTokenCounter } from '../src/index.js';
import type { NamedSelectors, Selection } from '../src/selector-kit.js';
import { namedSelectors, runSelection, toolsCost } from '../src/selector-kit.js';

/** The selectors the page compares, in display order. */
export const SELECTOR_IDS = ['keyword', 'bm25', 'embedding', 'hybrid'] as const;
export type SelectorId = (typeof SELECTOR_IDS)[number];

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
  /**
   * Wall time the corpus load added once the model was ready (one query embedding rides along).
   * The corpus starts alongside the model, so shipped or cached vectors are usually in hand by
   * then and this is little more than the query; embedding the corpus happens after the model.
   */
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
  readonly #table: NamedSelectors;
  #options: EngineOptions;
  #selectors: Partial<Record<SelectorId, AsyncToolSelector>> = {};
  #ready: Promise<void>;
  #tools: readonly ToolSchema[] = [];
  // When the model finished loading (performance.now()), once it has.
  #modelReadyAt: number | undefined;

  constructor(options: EngineOptions) {
    this.#options = options;
    const onProgress = options.onProgress;
    const vectorsPath = options.vectorsPath === undefined ? 'vectors/demo.lcv' : options.vectorsPath;
    this.embedder = useLiteEmbedder({
      modelPath: new URL('models/use-lite/', options.baseURI).href,
      // The app serves onnxruntime-web's files itself: never a CDN.
      wasmPaths: new URL('ort/', options.baseURI).href,
      device: options.device,
      dtype: options.dtype,
      // Threads pay off when the page embeds a corpus. With shipped vectors it embeds one prompt
      // per call, where a second thread only adds its start-up and hand-offs: one thread measured
      // a lower query p50 and an earlier ready page here (docs/browser-bench.md).
      numThreads: vectorsPath ? 1 : wasmThreads(),
      // Corpus progress comes from the selector (it knows the corpus size); queries stay quiet.
      onProgress: (p) => {
        if (p.phase === 'load') onProgress?.(p);
      },
    });
    this.cache = idbVectorCache({ dbName: DEMO_IDB_NAME, storeName: 'vectors' });
    this.#table = namedSelectors({
      embedder: this.embedder,
      cache: this.cache,
      defaultK: options.k,
      // Smaller corpus batches than the default: the progress bar moves every 16 tools. The shipped
      // vectors are fetched now, alongside the model load, and used on the first corpus build that
      // needs a text (IndexedDB is asked first).
      embeddingOptions: {
        batchSize: 16,
        ...(onProgress ? { onProgress: (p) => onProgress(p) } : {}),
        ...(vectorsPath ? { vectors: prefetch(new URL(vectorsPath, options.baseURI)) } : {}),
      },
    });
    this.#ready = this.#build(options.k);
  }

  // Every selector for `k`, from the table (built once per k; the dense ones share one corpus).
  async #build(k: number): Promise<void> {
    const built = await Promise.all(SELECTOR_IDS.map(async (id) => [id, await this.#table.get(id, k)] as const));
    this.#selectors = Object.fromEntries(built);
  }

  get #embedding(): EmbeddingSelector | undefined {
    return this.#selectors.embedding as EmbeddingSelector | undefined;
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
    return this.#embedding?.stats ?? NO_STATS;
  }

  /** Tools advertised per turn by the ranked selectors. */
  get k(): number {
    return this.#options.k;
  }

  /** Whether the hybrid column is shown (the selectors are built). */
  get hasHybrid(): boolean {
    return this.#selectors.hybrid !== undefined;
  }

  /**
   * Prompts learned from the chat's tool turns (kept in this browser's IndexedDB, beside the
   * corpus vectors). Every dense selector shares one store; it loads with the first ranking.
   */
  get learnedCount(): number {
    return this.#embedding?.learnedCount ?? 0;
  }

  /** Forget the learned prompts, in memory and in IndexedDB. */
  async clearLearned(): Promise<void> {
    await this.#ready;
    await this.#embedding?.clearLearned();
  }

  /** The selectors as the loop would install them, by id (for the chat panel). */
  selector(id: SelectorId): AsyncToolSelector | undefined {
    return this.#selectors[id];
  }

  /** Load the runtime, tokenizer and model (idempotent). */
  async load(): Promise<UseLiteBackend> {
    this.#options.onProgress?.({ phase: 'runtime', done: 0, total: 0 });
    const [backend] = await Promise.all([this.embedder.load(), this.#ready]);
    this.#modelReadyAt ??= performance.now();
    return backend;
  }

  /** Change k for the ranked selectors; the corpus stays loaded. */
  setK(k: number): Promise<void> {
    this.#options = { ...this.#options, k };
    this.#ready = this.#build(k);
    return this.#ready;
  }

  /**
   * Switch to a tool list and make its corpus vectors ready: from memory, from IndexedDB, from
   * the shipped file, or by embedding them (with progress). May be called while the model
   * loads: vectors that need no embedding load meanwhile, and the call settles once the model
   * has embedded `warmQuery` too.
   */
  async setTools(tools: readonly ToolSchema[], warmQuery = 'warm up'): Promise<CorpusInfo> {
    this.useTools(tools);
    await this.#ready;
    const embedding = this.#embedding as EmbeddingSelector;
    const before = embedding.stats;
    const started = performance.now();
    const ranked = await embedding.scoreTools(warmQuery, tools);
    if (!ranked.ok) throw new Error(`corpus could not load: ${ranked.reason}`);
    const ended = performance.now();
    const ms = ended - Math.min(ended, Math.max(started, this.#modelReadyAt ?? ended));
    const after = embedding.stats;
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
  async select(
    prompt: string,
    signal?: AbortSignal,
    include: readonly SelectorId[] = ['keyword', 'bm25', 'embedding', 'hybrid'],
  ): Promise<SelectorResult[]> {
    const all = this.#tools;
    const ctx = promptContext(prompt);
    await this.#ready;
    const results: SelectorResult[] = [];
    for (const id of SELECTOR_IDS) {
      const selector = this.#selectors[id];
      if (!selector || !include.includes(id)) continue;
      const started = performance.now();
      // The same call the loop makes: validated, fail-open, raced against the signal.
      const selection = await runSelection(selector, ctx, all, signal ? { signal } : {});
      results.push(describeSelection(id, selection, performance.now() - started));
    }
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

/** Threads for embedding a corpus on onnxruntime-web: every core (up to 4) when the page is cross-origin isolated, else 1. */
function wasmThreads(): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
  return globalThis.crossOriginIsolated ? Math.max(1, Math.min(4, cores)) : 1;
}

const NO_STATS: CorpusStats = {
  corpusEmbeds: 0,
  cacheHits: 0,
  cacheMisses: 0,
  rebuiltCorrupt: 0,
  memoryHits: 0,
  reusedTexts: 0,
  joined: 0,
  seededTexts: 0,
};

/** Rank a selection's advertised tools for display. */
function describeSelection(id: SelectorId, selection: Selection, ms: number): SelectorResult {
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
    if (a.score === undefined || b.score === undefined)
      return a.score === undefined ? (b.score === undefined ? 0 : 1) : -1;
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
