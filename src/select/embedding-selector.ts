/**
 * Selection by meaning: embed every tool's name and description once per registry
 * generation, embed the run's opening prompt every turn, advertise the nearest tools.
 */

import { errorMessage } from '../describe-error.js';
import type { CorpusLoad, CorpusStats } from '../embed/corpus-index.js';
import { CorpusIndex } from '../embed/corpus-index.js';
import type { Embedder, EmbedProgress } from '../embed/embedder.js';
import { scoreRows } from '../embed/embedder.js';
import { QueryVectorError, QueryVectors } from '../embed/query-vectors.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { memoryVectorCache } from '../embed/vector-cache.js';
import type { VectorsFile } from '../embed/vectors-file.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { LearnExample, LearnedVoteOptions } from '../learn/example-memory.js';
import { LazyLearnedStore } from '../learn/lazy-learned-store.js';
import type { LearnedStore, LearnOptions, LearnSummary, ProjectionState } from '../learn/learned-store.js';
import { raceAbort, withDeadline } from '../limits/abort.js';
import { mergeOptions } from '../options.js';
import { adaptiveCut } from '../rank/adaptive-k.js';
import { minMax } from '../rank/min-max.js';
import { assertTopK, DEFAULT_K, topK } from '../rank/top-k.js';
import { nameRecord } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import { fullSurface } from './apply-selection.js';
import type { AsyncToolSelector, SelectionContext, SelectOptions, SelectorOutput, ToolReason } from './selector.js';

/** Adaptive k for {@link EmbeddingSelector}: keep between `floor` and `ceiling` by score fall-off. */
export interface EmbeddingAdaptiveOptions {
  /** Default `min(3, topK)`. */
  floor?: number;
  /** Default `topK`: adaptive k only ever narrows the fixed budget. */
  ceiling?: number;
  /** Keep scores of at least `relative × top`. */
  relative?: number;
  /** Cut at the largest drop when it is at least this big; with no `relative`, the largest drop. */
  gap?: number;
  /** Keep scores at least `top − span × (top − score at the ceiling)`. */
  span?: number;
}

/** Options for {@link EmbeddingSelector}. */
export interface EmbeddingSelectorOptions {
  /** Tools advertised per turn (before core tools are unioned in). Default {@link DEFAULT_K}. */
  topK?: number;
  /** Where corpus vectors persist. Default an in-memory cache private to this selector. */
  cache?: VectorCache;
  /** Tools unioned into every non-empty selection, and always in the fail-open surface. */
  coreTools?: readonly string[];
  /** Corpus embedding progress (for a progress bar on the first turn of a big registry). */
  onProgress?: (progress: EmbedProgress) => void;
  /** Let k follow the scores instead of staying fixed (`true` for the defaults). */
  adaptive?: EmbeddingAdaptiveOptions | boolean;
  /** Corpus texts per embed call. Default 256 (the embedder buckets them by length). */
  batchSize?: number;
  /**
   * Most corpus texts one turn embeds (see `CorpusIndexOptions.maxNewTexts`): a bigger new
   * registry is embedded over several turns, each ranking without vectors until it is whole.
   * Default: no limit. A server taking tool lists from clients sets one.
   */
  maxNewTexts?: number;
  /**
   * A precomputed vectors file (built by `loopctl vectors`): bytes, a URL, a `Response`, or a
   * function returning one (an asset, a KV read). Tool texts it holds are not embedded, so the
   * first turn over a matching registry embeds only the query; texts it lacks (new or changed
   * tools) are embedded as usual. A file from another embedder, of other dimensions, corrupt,
   * truncated or unreachable is ignored with a warning; a run never fails because of it.
   */
  vectors?: VectorsSource;
  /**
   * Milliseconds a turn waits for the query embedding (and for the corpus, when it is not
   * warm yet) before falling open to the full surface with `fellOpen: 'embedding timed out
   * after N ms'`. A corpus build that times out keeps running in the background, so a later
   * turn finds it warm; the timed-out query embedding is aborted. The run's abort signal
   * still wins: an abort rejects with the signal's reason, never a fall-open.
   *
   * Default: no timeout (`undefined`). The first turn over a big registry embeds the whole
   * corpus, which can take tens of seconds on a WASM backend; a default timeout would fall
   * open on exactly that turn. Set one when a hung or slow embedder must not hold a turn.
   */
  timeoutMs?: number;
  /** How learned examples vote (see {@link EmbeddingSelector.learn}). */
  learned?: LearnedVoteOptions;
  /**
   * Where learned examples persist. Default: `cache`, beside the corpus vectors. An eval that
   * must not pick up earlier runs' examples passes a fresh `memoryVectorCache()`.
   */
  learnedCache?: VectorCache;
}

/** The learning settings {@link EmbeddingSelector.withLearning} changes; one left out is kept. */
export interface LearningSettings {
  learned?: LearnedVoteOptions | undefined;
  learnedCache?: VectorCache | undefined;
}

/** Scores for every tool of a list, or why there are none. */
export type ToolScores =
  | { readonly ok: true; readonly scores: Float32Array; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly warnings: readonly string[] };

/**
 * Cosine scores of every tool for several query texts (one embed call), with each query's
 * unit vector, or why there are none.
 */
export type QueryScores =
  | {
      readonly ok: true;
      readonly scores: readonly Float32Array[];
      readonly vectors: readonly Float32Array[];
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly reason: string; readonly warnings: readonly string[] };

type Embedded =
  | {
      readonly ok: true;
      readonly corpus: CorpusLoad['corpus'];
      readonly vectors: Float32Array[];
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly reason: string; readonly warnings: readonly string[] };

interface Settings {
  readonly topK: number;
  readonly cache: VectorCache;
  readonly coreTools: readonly string[];
  readonly onProgress: ((progress: EmbedProgress) => void) | undefined;
  readonly adaptive: EmbeddingAdaptiveOptions | undefined;
  readonly batchSize: number;
  readonly maxNewTexts: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly learned: LearnedVoteOptions | undefined;
  readonly learnedCache: VectorCache | undefined;
  readonly vectors: VectorsSource | undefined;
}

/**
 * An {@link AsyncToolSelector} that ranks tools by cosine similarity between the run's opening
 * prompt and each tool's `toolText` (split name + description). Corpus vectors are computed
 * once per registry generation and cached; the query is embedded fresh every turn. Any
 * failure to rank (an embed error, a vector that cannot rank, a shape mismatch, no prompt,
 * or — with `timeoutMs` set — an embedder slower than the timeout) falls open to the full
 * surface with a reason. Abort rejects with the signal's reason.
 *
 * @example
 * const selector = new EmbeddingSelector(embedder, { cache: idbVectorCache() })
 *   .withTopK(6)
 *   .withCoreTools(['read_file'])
 * const output = await selector.select(ctx, registry.schemas(), { signal })
 * output.fellOpen ?? output.reasons // per-tool scores
 */
export class EmbeddingSelector implements AsyncToolSelector {
  readonly name = 'embedding';
  readonly embedder: Embedder;
  private readonly settings: Settings;
  private readonly core: ReadonlySet<string>;
  private index: CorpusIndex;
  // Reused across turns so a warm turn allocates no per-tool scores array.
  private readonly scratch = new ScoreBuffer();
  private queries: QueryVectors;
  private learning: LazyLearnedStore;

  constructor(embedder: Embedder, options: EmbeddingSelectorOptions = {}) {
    const {
      topK: k,
      cache,
      coreTools,
      onProgress,
      adaptive,
      batchSize,
      maxNewTexts,
      timeoutMs,
      learned,
      learnedCache,
      vectors,
    } = mergeOptions({ topK: DEFAULT_K, coreTools: [] as readonly string[], batchSize: 256 }, options);
    assertTopK(k);
    assertTimeout(timeoutMs);
    this.embedder = embedder;
    this.settings = {
      topK: k,
      cache: cache ?? memoryVectorCache(),
      coreTools: [...coreTools],
      onProgress,
      adaptive: adaptive === true ? {} : adaptive === false ? undefined : adaptive,
      batchSize,
      maxNewTexts,
      timeoutMs,
      learned,
      learnedCache,
      vectors,
    };
    this.core = new Set(this.settings.coreTools);
    this.index = new CorpusIndex(embedder, this.settings.cache, { batchSize, onProgress, vectors, maxNewTexts });
    this.queries = new QueryVectors(embedder);
    this.learning = new LazyLearnedStore(learnedCache ?? this.settings.cache, embedder, learned);
  }

  /**
   * Learn from examples of this registry's own traffic: each `{ query, tools }` is a prompt and
   * the tool names that served it (what the model called, or a user's correction). Later
   * prompts close to a learned one see its tools voted up, and, once enough examples agree, a
   * learned linear map of the query vector (see `src/learn/query-projection.ts`) moves every
   * query toward the registry's own tool vectors; a held-out check on the examples decides
   * whether and how much to apply it (`summary.projection`). Examples are kept per registry
   * generation and embedder in this selector's {@link VectorCache} (so they survive a reload
   * where the cache does), a removed tool's examples are dropped when the registry changes,
   * and nothing leaves the cache. `tools` names the registry; without it, the list this
   * selector last ranked. Unknown tool names, blank prompts and repeats are counted in the
   * summary, not learned. With `{ fit: 'background' }` the call resolves once the examples are
   * stored and the map is refitted on a later task (rankings keep the map in force meanwhile).
   * Either way the fit runs in time slices that give the thread back (a page stays responsive).
   * Rejects only when the embedder fails (nothing from that call is kept) or the signal aborts.
   *
   * @example
   * const summary = await selector.learn([{ query: 'weather in Oslo', tools: ['get_weather'] }], { tools: registry.schemas() })
   * summary.learned // 1
   */
  learn(examples: readonly LearnExample[], options: LearnOptions = {}): Promise<LearnSummary> {
    return this.learning.load().then((store) =>
      store.learn(examples, {
        ...options,
        index: this.index,
        embed: (texts, signal) => this.queries.embed(texts, signal),
        corpus: async (all, signal) => (await this.index.load(all, signal ? { signal } : {})).corpus,
      }),
    );
  }

  /**
   * Forget every learned example, in memory and in the cache.
   *
   * @example
   * await selector.clearLearned()
   */
  clearLearned(): Promise<void> {
    return this.learning.load().then((store) => store.clear());
  }

  /** How many prompts are learned (after the last reconcile with the registry). */
  get learnedCount(): number {
    return this.learning.store?.size ?? 0;
  }

  /**
   * Whether the learned query projection applies (see {@link ProjectionState}); undefined until
   * examples were learned and the registry's corpus was seen.
   *
   * @example
   * await selector.learn(examples, { tools })
   * selector.learnedProjection?.applied
   */
  get learnedProjection(): ProjectionState | undefined {
    return this.learning.store?.projection;
  }

  /**
   * The learned examples' votes for a unit query vector, aligned with `all` (already scaled to
   * add to a 0..1 score), or undefined when no learned prompt is near. For blending selectors.
   *
   * @example
   * const ranked = await selector.scoreQueries(['weather in Oslo'], all)
   * if (ranked.ok) selector.learnedVotes(ranked.vectors[0], all)
   */
  learnedVotes(vector: Float32Array, all: readonly ToolSchema[]): Float64Array | undefined {
    return this.learning.store?.votes(vector, all);
  }

  /** @internal The learned-examples store, once loaded (for the hybrid's learned pairs and guard). */
  get learnedStore(): LearnedStore | undefined {
    return this.learning.store;
  }

  /** Tools advertised per turn (before core tools). */
  get topK(): number {
    return this.settings.topK;
  }

  /** The core tool names. */
  get coreTools(): readonly string[] {
    return this.settings.coreTools;
  }

  /** The corpus vector cache. */
  get cache(): VectorCache {
    return this.settings.cache;
  }

  /** How long a turn waits for the embedder before falling open (`undefined`: no timeout). */
  get timeoutMs(): number | undefined {
    return this.settings.timeoutMs;
  }

  /**
   * The precomputed vectors file this selector seeds from, read and verified once: undefined
   * without one, or when it was refused (the corpus build reports why).
   *
   * @example
   * const file = await selector.vectorsFile()
   * file?.sections // what else the file ships (the hybrid's derived state)
   */
  vectorsFile(signal?: AbortSignal): Promise<VectorsFile | undefined> {
    return this.index.vectorsFile(signal);
  }

  /** Corpus counters: texts embedded, cache hits and misses, corrupt entries rebuilt. */
  get stats(): CorpusStats {
    return this.index.stats;
  }

  /**
   * A copy with these options over this selector's, merged by `mergeOptions` (a key left
   * `undefined` keeps this selector's): the one way to derive a configured selector. It shares
   * this selector's warm corpus while the cache and vectors stay the same, and its learned
   * examples while the learning options do too.
   *
   * @example
   * const narrow = selector.extend({ topK: 4, coreTools: ['read_file'] })
   */
  extend(options: EmbeddingSelectorOptions): EmbeddingSelector {
    return this.derive(mergeOptions(this.settings, options));
  }

  /**
   * A copy advertising `k` ranked tools per turn (a positive integer).
   *
   * @example
   * const narrow = selector.withTopK(4)
   */
  withTopK(k: number): EmbeddingSelector {
    return this.extend({ topK: k });
  }

  /**
   * A copy that always unions these tools into a non-empty selection.
   *
   * @example
   * const withBasics = selector.withCoreTools(['read_file', 'write_file'])
   */
  withCoreTools(names: readonly string[]): EmbeddingSelector {
    return this.extend({ coreTools: [...this.settings.coreTools, ...names] });
  }

  /**
   * A copy persisting corpus vectors in `cache`.
   *
   * @example
   * const persistent = selector.withCache(kvVectorCache(env.VECTORS))
   */
  withCache(cache: VectorCache): EmbeddingSelector {
    return this.extend({ cache });
  }

  /**
   * A copy seeded from a precomputed vectors file (see {@link EmbeddingSelectorOptions.vectors}).
   *
   * @example
   * const seeded = selector.withVectors(new URL('vectors/tools.lcv', document.baseURI))
   */
  withVectors(vectors: VectorsSource | undefined): EmbeddingSelector {
    return vectors === undefined ? this.derive({ ...this.settings, vectors }) : this.extend({ vectors });
  }

  /**
   * A copy whose k follows the scores (`false` turns it off).
   *
   * @example
   * const adaptive = selector.withAdaptive({ floor: 2, relative: 0.85 })
   */
  withAdaptive(adaptive: EmbeddingAdaptiveOptions | boolean = true): EmbeddingSelector {
    return this.extend({ adaptive });
  }

  /**
   * A copy whose learned examples vote with `learned` and persist in `learnedCache` (see
   * {@link EmbeddingSelectorOptions}); an option left out keeps this selector's. A copy with
   * other learning settings keeps its own examples; the warm corpus is still shared.
   *
   * @example
   * const forEval = selector.withLearning({ learnedCache: memoryVectorCache(), learned: { weight: 2 } })
   */
  withLearning({ learned, learnedCache }: LearningSettings): EmbeddingSelector {
    return this.extend({ learned, learnedCache });
  }

  /**
   * A copy that waits at most `ms` for the query embedding (and a cold corpus) before falling
   * open; `undefined` removes the timeout. The corpus build carries on in the background and
   * is shared with this selector, so the next turn finds it warm. See
   * {@link EmbeddingSelectorOptions.timeoutMs} for why there is no default.
   *
   * @example
   * const bounded = selector.withTimeout(2_000)
   */
  withTimeout(ms: number | undefined): EmbeddingSelector {
    return ms === undefined ? this.derive({ ...this.settings, timeoutMs: ms }) : this.extend({ timeoutMs: ms });
  }

  /**
   * The tools to advertise this turn (registry order) with each one's cosine score, or the
   * full surface with `fellOpen` when the selector could not rank.
   *
   * @example
   * const { tools, reasons, fellOpen } = await selector.select(ctx, all, { signal })
   */
  async select(ctx: SelectionContext, all: readonly ToolSchema[], options?: SelectOptions): Promise<SelectorOutput> {
    const signal = options?.signal;
    signal?.throwIfAborted();
    if (all.length === 0) return { tools: [] };
    return this.scratch.use(all.length, async (into) => {
      const ranked = await this.rank(ctx.latestUserMessage, all, signal, into);
      if (!ranked.ok) return fullSurface(all, this.core, ranked.reason, ranked.warnings);
      const votes = ranked.vector ? this.learning.store?.votes(ranked.vector, all) : undefined;
      if (votes) {
        // Votes are on a 0..1 scale; cosines spread over less, so scale by their own spread.
        const [low, high] = minMax(ranked.scores);
        for (let i = 0; i < all.length; i++)
          ranked.scores[i] = (ranked.scores[i] as number) + (votes[i] as number) * (high - low);
      }
      return this.output(all, ranked.scores, ranked.warnings, votes);
    });
  }

  private output(
    all: readonly ToolSchema[],
    scores: Float32Array,
    warnings: readonly string[],
    votes?: Float64Array,
  ): SelectorOutput {
    const picked = this.pick(scores);
    if (picked.length === 0) return { tools: [], ...(warnings.length ? { warnings } : {}) };
    const chosen = new Set(picked);
    const tools: ToolSchema[] = [];
    const reasons = nameRecord<ToolReason>();
    for (let i = 0; i < all.length; i++) {
      const tool = all[i] as ToolSchema;
      const isRanked = chosen.has(i);
      if (!isRanked && !this.core.has(tool.name)) continue;
      tools.push(tool);
      const learned = votes && (votes[i] as number) > 0 ? { parts: { learned: votes[i] as number } } : {};
      reasons[tool.name] = isRanked
        ? { score: scores[i] as number, ...learned }
        : { score: scores[i] as number, ...learned, core: true };
    }
    return { tools, reasons, ...(warnings.length ? { warnings } : {}) };
  }

  /**
   * The cosine score of every tool in `all` (registry order) against `query` (through the
   * learned projection when one applies), for selectors that blend rankings (a hybrid). Never throws except on abort: a failure to rank comes
   * back as `{ ok: false, reason }`.
   *
   * @example
   * const ranked = await selector.scoreTools('weather in Oslo', all, { signal })
   * if (ranked.ok) ranked.scores[0] // cosine of all[0]
   */
  async scoreTools(
    query: string | undefined,
    all: readonly ToolSchema[],
    options?: { signal?: AbortSignal },
  ): Promise<ToolScores> {
    const ranked = await this.rank(query, all, options?.signal, new Float32Array(all.length));
    return ranked.ok ? { ok: true, scores: ranked.scores, warnings: ranked.warnings } : ranked;
  }

  /**
   * The cosine score of every tool for each of several queries (the clauses of a prompt),
   * embedded in one call (scored through the learned projection when one applies), with each
   * query's own unit vector. Blank queries are refused as a
   * whole. Never throws except on abort.
   *
   * @example
   * const ranked = await selector.scoreQueries(['weather in Oslo', 'email Kim'], all, { signal })
   * if (ranked.ok) ranked.scores[1] // cosines for the second query
   */
  async scoreQueries(
    queries: readonly string[],
    all: readonly ToolSchema[],
    options?: { signal?: AbortSignal },
  ): Promise<QueryScores> {
    const texts = queries.map((query) => (typeof query === 'string' ? query.trim() : ''));
    if (texts.length === 0 || texts.some((text) => text === '')) {
      return { ok: false, reason: 'no query to rank against (the run has no opening prompt)', warnings: [] };
    }
    const embedded = await this.embedAgainstCorpus(texts, all, options?.signal);
    if (!embedded.ok) return embedded;
    const { corpus, vectors, warnings } = embedded;
    // One pass over the tool vectors for every query (the prompt and its clauses, or kind-link inputs).
    const scores = vectors.map(() => new Float32Array(all.length));
    (await import('../embed/score-rows-many.js')).scoreRowsMany(
      corpus.matrix,
      corpus.count,
      corpus.dimensions,
      vectors.map((vector) => this.projected(vector, corpus.key)),
      scores,
    );
    return { ok: true, scores, vectors, warnings };
  }

  /**
   * The corpus's unit tool vectors (row-major, `all.length × dimensions`, registry order; do not
   * mutate), for selectors that relate tools to one another (the hybrid's tool links). Undefined
   * when the corpus cannot load (or the signal aborts: the caller checks it). Never rejects.
   *
   * @example
   * const vectors = await selector.toolVectors(all)
   * vectors?.matrix.subarray(0, vectors.dimensions) // all[0]'s vector
   */
  toolVectors(
    all: readonly ToolSchema[],
    options?: { signal?: AbortSignal },
  ): Promise<{ matrix: Float32Array; dimensions: number } | undefined> {
    return this.index.load(all, options).then(
      ({ corpus }) =>
        corpus.count === all.length ? { matrix: corpus.matrix, dimensions: corpus.dimensions } : undefined,
      () => undefined,
    );
  }

  private async rank(
    query: string | undefined,
    all: readonly ToolSchema[],
    signal: AbortSignal | undefined,
    into: Float32Array,
  ): Promise<
    (ToolScores & { ok: false }) | { ok: true; scores: Float32Array; vector: Float32Array; warnings: readonly string[] }
  > {
    signal?.throwIfAborted();
    const text = typeof query === 'string' ? query.trim() : '';
    if (text === '')
      return { ok: false, reason: 'no query to rank against (the run has no opening prompt)', warnings: [] };
    const embedded = await this.embedAgainstCorpus([text], all, signal);
    if (!embedded.ok) return embedded;
    const { corpus, vectors, warnings } = embedded;
    const vector = vectors[0] as Float32Array;
    const scores = into.length === all.length ? into : new Float32Array(all.length);
    scoreRows(corpus.matrix, corpus.count, corpus.dimensions, this.projected(vector, corpus.key), scores);
    return { ok: true, scores, vector, warnings };
  }

  /** The query as the dense half ranks it: through the learned projection when one applies. */
  private projected(vector: Float32Array, corpusKey: string): Float32Array {
    return this.learning.store?.project(vector, corpusKey) ?? vector;
  }

  /** Load the corpus and embed the query texts together, under the timeout; validate both. */
  private async embedAgainstCorpus(
    texts: readonly string[],
    all: readonly ToolSchema[],
    signal: AbortSignal | undefined,
  ): Promise<Embedded> {
    signal?.throwIfAborted();
    const { timeoutMs } = this.settings;
    // With a timeout the query embedding gets its own signal (linked to the run's), so a
    // timed-out query is abandoned. The corpus build keeps the run's signal only: it must
    // outlive a timeout so a later turn finds it warm.
    const deadline = withDeadline(signal, timeoutMs);
    const corpusLoad = this.index.load(all, signal ? { signal } : {});
    const queryEmbed = this.queries.embed(texts, deadline.signal, true);
    let settled: [PromiseSettledResult<CorpusLoad>, PromiseSettledResult<Float32Array[]>];
    try {
      // allSettled: neither promise can go unhandled, whether we wait for it or not.
      settled = await raceAbort(allSettledPair(corpusLoad, queryEmbed), deadline.signal);
    } catch (error) {
      // An abort surfaces as the signal's reason, never as a fall-open; a deadline falls open.
      if (!deadline.expired()) throw error;
      return { ok: false, reason: `embedding timed out after ${timeoutMs} ms`, warnings: [] };
    }
    const [corpusResult, queryResult] = settled;

    if (corpusResult.status === 'rejected') {
      return { ok: false, reason: `corpus embedding failed: ${errorMessage(corpusResult.reason)}`, warnings: [] };
    }
    const { corpus } = corpusResult.value as CorpusLoad;
    const warnings = [...(corpusResult.value as CorpusLoad).warnings];
    if (queryResult.status === 'rejected') {
      const reason = queryResult.reason;
      if (reason instanceof QueryVectorError) return { ok: false, reason: reason.message, warnings };
      return { ok: false, reason: `query embedding failed: ${errorMessage(reason)}`, warnings };
    }
    const vectors = queryResult.value;
    for (const vector of vectors) {
      if (vector.length !== corpus.dimensions) {
        return {
          ok: false,
          reason: `query vector has ${vector.length} dimensions, expected ${corpus.dimensions}`,
          warnings,
        };
      }
    }
    if (corpus.count !== all.length) {
      return { ok: false, reason: `corpus has ${corpus.count} vectors for ${all.length} tools`, warnings };
    }
    // The coverage check loads with the first embedder that can tell (it is not needed to import loopctl).
    const unread = this.embedder.vocabularyCoverage
      ? (await import('../embed/vocabulary-coverage.js')).unreadableQuery(this.embedder, texts)
      : undefined;
    if (unread) return { ok: false, reason: unread, warnings };
    // Learned examples follow the registry generation; a cold one loads them once.
    warnings.push(...(await (await this.learning.load()).reconcile(corpus, all, signal)));
    return { ok: true, corpus, vectors, warnings };
  }

  private pick(scores: Float32Array): number[] {
    const { topK: k, adaptive } = this.settings;
    if (!adaptive) return topK(scores, k);
    const floor = adaptive.floor ?? Math.min(3, k);
    const ceiling = adaptive.ceiling ?? k;
    const ranked = topK(scores, Math.max(floor, ceiling));
    const keep = adaptiveCut(
      ranked.map((i) => scores[i] as number),
      { floor, ceiling, relative: adaptive.relative, gap: adaptive.gap, span: adaptive.span },
    );
    return ranked.slice(0, keep);
  }

  // A copy built from these options (all of them: `extend` merges them over this selector's;
  // withTimeout(undefined) and withVectors(undefined) clear one, which a merge cannot).
  private derive(options: EmbeddingSelectorOptions): EmbeddingSelector {
    const next = new EmbeddingSelector(this.embedder, options);
    // Same cache and seed: share the index, so counters, memoised keys and the warm corpus carry over.
    if (next.settings.cache === this.settings.cache && next.settings.vectors === this.settings.vectors)
      next.index = this.index;
    // Same cache and settings: share the learned examples too.
    if (
      next.settings.cache === this.settings.cache &&
      next.settings.learned === this.settings.learned &&
      next.settings.learnedCache === this.settings.learnedCache
    ) {
      next.learning = this.learning;
    }
    next.queries = this.queries;
    return next;
  }
}

function allSettledPair<A, B>(
  a: Promise<A>,
  b: Promise<B>,
): Promise<[PromiseSettledResult<A>, PromiseSettledResult<B>]> {
  return Promise.allSettled([a, b]) as Promise<[PromiseSettledResult<A>, PromiseSettledResult<B>]>;
}

function assertTimeout(ms: number | undefined): void {
  if (ms !== undefined && !(Number.isFinite(ms) && ms > 0)) {
    throw new RangeError(`timeoutMs must be a positive finite number of milliseconds, got ${ms}`);
  }
}

/**
 * One reusable scores array: a warm turn allocates none, and a turn that starts while another
 * is still scoring (concurrent turns on one selector) gets an array of its own.
 */
class ScoreBuffer {
  #buffer = new Float32Array(0);
  #busy = false;

  async use<T>(length: number, work: (into: Float32Array) => Promise<T>): Promise<T> {
    if (this.#busy) return work(new Float32Array(length));
    if (this.#buffer.length !== length) this.#buffer = new Float32Array(length);
    this.#busy = true;
    try {
      return await work(this.#buffer);
    } finally {
      this.#busy = false;
    }
  }
}
