import type { Embedder } from '../embed/embedder.js';
import type { VectorCache } from '../embed/vector-cache.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { LearnExample, LearnedVoteOptions } from '../learn/example-memory.js';
import type { LearnOptions, LearnSummary, ProjectionState } from '../learn/learned-store.js';
import { mergeOptions } from '../options.js';
import { adaptiveCut } from '../rank/adaptive-k.js';
import { assertTopK, DEFAULT_K, topK } from '../rank/top-k.js';
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import type { ClauseOptions } from '../text/clauses.js';
import type { Lexicon } from '../text/lexicon.js';
import { stem } from '../text/stem.js';
import type { PhrasePair, SynonymPair, SynonymTable } from '../text/synonyms.js';
import { expandQuery, lexiconSynonyms } from '../text/synonyms.js';
import { textTokens } from '../text/words.js';
import { fullSurface } from './apply-selection.js';
import type { EmbeddingSelectorOptions } from './embedding-selector.js';
import { EmbeddingSelector } from './embedding-selector.js';
import type { LexicalEvidence, RankSettings, RankTurn } from './rank-stages.js';
import type { AsyncToolSelector, SelectionContext, SelectOptions, SelectorOutput } from './selector.js';
import type { ToolLinkOptions, ToolLinks } from './tool-links.js';
import type { LinkSource } from './whole-task.js';

/**
 * Multi-intent ranking: the prompt is split into clauses (`splitClauses`) and each clause
 * is scored like a prompt of its own (same blend), so that each clause's best tool can keep a
 * slot (`clauseSlots`). The whole prompt's ranking is its own: mixing the clauses' scores into
 * it (until issue 51) did not raise the blind aggregate. A one-clause prompt ranks as before.
 *
 * An enumerated prompt ("First, … Second, … Finally, …", see `splitEnumeration`) uses its
 * items as the clauses, and with `share` each item's best tool keeps one of the k slots.
 */
export interface MultiIntentOptions extends ClauseOptions {
  /** Give each item of an enumerated prompt its best tool's slot (default true). */
  share?: boolean;
  /**
   * Give each clause of any multi-clause prompt its best tool: one the k picks left out is
   * advertised beyond k, from the links budget (an enumeration's items keep theirs within k).
   */
  clauseSlots?: boolean;
  /**
   * Added to the whole prompt's score, times the share of a tool's parameters the prompt names,
   * for the best 20 tools: "a hotel that allows smoking" lifts the search taking
   * `smoking_allowed` over hotel tools that only share `location`. A parameter word that more
   * than 30% of those tools take names none of them. Default 0.1; 0 turns it off.
   */
  parameters?: number;
  /**
   * Spell out workplace shorthand in the ranked texts ("ack" → acknowledge, "DM" → direct
   * message, "#ops" → channel), keeping the short form; the table is `spellOutShorthand`'s.
   * Default true.
   */
  shorthand?: boolean;
}

/**
 * Adaptive k for the hybrid: between `floor` and `ceiling`, keep tools scoring at least
 * `top − span × (top − score at the ceiling)` (and, when set, at least `relative × top`).
 */
export interface HybridAdaptiveOptions {
  floor?: number;
  ceiling?: number;
  span?: number;
  relative?: number;
}

/** Options for {@link HybridSelector}. Defaults were fitted on the dev split (docs/benchmarks.md). */
export interface HybridSelectorOptions {
  /** Tools advertised per turn when not adaptive. Default {@link DEFAULT_K}. */
  topK?: number;
  /** Weight of the dense score in the blend (the lexical score gets 1 − weight). */
  denseWeight?: number;
  /**
   * The lexical half is scaled by max(best BM25 score, lexicalFloor × the query's reference
   * score), so a weak best match counts for less than a strong one.
   */
  lexicalFloor?: number;
  /**
   * Added to the blend times the share of the tool's name words found in the prompt (0 turns
   * it off), so a prompt that names a tool outright ranks it above near-namesakes.
   */
  nameWeight?: number;
  /** BM25 term-frequency saturation. */
  k1?: number;
  /** BM25 length normalisation. */
  b?: number;
  /**
   * The language of the prompts and the tools: stopwords, stemmer, synonyms and the tables the
   * lexical rules read (clauses, shorthand, tool links). Default: English. A prompt
   * mostly in a script the lexicon does not cover skips those rules, with a warning.
   */
  lexicon?: Lexicon;
  /** Extra synonym pairs for query expansion (the lexicon's table is always on). */
  synonyms?: readonly SynonymPair[];
  phrases?: readonly PhrasePair[];
  /** Tools unioned into every non-empty selection. */
  coreTools?: readonly string[];
  /** Corpus vector cache (shared with any EmbeddingSelector on the same cache). */
  cache?: VectorCache;
  /**
   * A precomputed vectors file for the embedding half (see `EmbeddingSelectorOptions.vectors`);
   * overrides the one of an {@link EmbeddingSelector} passed in.
   */
  vectors?: VectorsSource;
  /** Let k follow the blended scores (`true` for the fitted defaults). */
  adaptive?: HybridAdaptiveOptions | boolean;
  /**
   * Milliseconds a turn waits for the embedding half (the query embedding, and the corpus
   * when it is not warm yet). On timeout the selector ranks on its lexical half with a
   * warning (`… embedding timed out after N ms`), and falls open only when the lexical half
   * has no match, exactly as for any other embed failure. The corpus build keeps running in
   * the background, so a later turn finds it warm. The run's abort signal still wins.
   *
   * Default: no timeout (`undefined`); when an {@link EmbeddingSelector} is passed in, its own
   * timeout applies unless this is set. The first turn over a big registry embeds the whole
   * corpus, which can take tens of seconds on a WASM backend, so a default timeout would drop
   * the dense half on exactly that turn.
   */
  timeoutMs?: number;
  /** Rank each clause of a multi-intent prompt too (`false` turns it off). Default on. */
  multiIntent?: MultiIntentOptions | boolean;
  /**
   * How learned examples vote (see {@link HybridSelector.learn}); overrides the one of an
   * {@link EmbeddingSelector} passed in.
   */
  learned?: LearnedVoteOptions;
  /**
   * Where learned examples persist (default: `cache`); see {@link EmbeddingSelectorOptions.learnedCache}.
   * Overrides the one of an {@link EmbeddingSelector} passed in.
   */
  learnedCache?: VectorCache;
  /**
   * Whole-task selection: a picked tool whose required input is a handle the prompt does not
   * give (`task_id`, `email_id`, a ticker…) brings the tool that finds it (`search_tasks`),
   * within {@link ToolLinkOptions.budget} tools beyond k, with a `neededBy` reason. Links are
   * inferred once per registry list, or declared (here, at registration with `needs`, or with
   * `withToolNeeds`); see {@link HybridSelector.toolLinks}. `false` turns it off. Default on.
   */
  links?: ToolLinkOptions | false;
}

/** The fitted defaults (dev split; see docs/benchmarks.md for the procedure). */
const HYBRID_DEFAULTS = {
  topK: DEFAULT_K,
  denseWeight: 0.7,
  lexicalFloor: 0,
  nameWeight: 0.2,
  k1: 0.9,
  b: 0.4,
  adaptive: { floor: 3, ceiling: 16, span: 0.8 },
  multiIntent: { share: true, clauseSlots: true, parameters: 0.1, shorthand: true },
} as const;

/**
 * Lexical and dense evidence together: BM25 over each tool's split name, description and
 * parameter names and descriptions (stemmed, with the query expanded by the keyword
 * selector's synonym table), blended with the embedding's cosine. Each half is scaled to
 * 0..1 per query (BM25 by its best score, cosine min–max over the registry) and mixed by
 * `denseWeight`. If the embedder fails (or, with `timeoutMs`, is too slow) the selector
 * degrades to its lexical half and says so in `warnings`; only when neither half can rank
 * does it fall open to the full surface.
 *
 * @example
 * const selector = new HybridSelector(useLiteEmbedder({ modelPath: '/models/use-lite' }), { adaptive: true })
 * loop.withAsyncToolSelector(selector)
 */
export class HybridSelector implements AsyncToolSelector {
  readonly name: string;
  readonly #dense: EmbeddingSelector;
  readonly #options: Required<
    Pick<HybridSelectorOptions, 'topK' | 'denseWeight' | 'lexicalFloor' | 'nameWeight' | 'k1' | 'b'>
  >;
  readonly #adaptive: (HybridAdaptiveOptions & { floor: number; ceiling: number }) | undefined;
  readonly #table: SynonymTable;
  readonly #lexicon: Lexicon | undefined;
  readonly #core: ReadonlySet<string>;
  readonly #settings: RankSettings;
  readonly #multiIntent: MultiIntentOptions | undefined;
  readonly #links: (ToolLinkOptions & { budget: number }) | undefined;
  // The links' settings and their cache per registry list (with the tools' vectors once the
  // corpus is warm; lexical only, not kept, on a turn whose dense half is down).
  readonly #linkSource: LinkSource;
  readonly #derived = { inferred: 0, shipped: 0, seeded: 0 };
  // What `extend` merges over: the options minus those already applied to #dense (cache,
  // timeout, vectors, learned examples: a copy shares the same embedding half).
  readonly #derivable: HybridSelectorOptions;

  constructor(embedder: Embedder | EmbeddingSelector, options: HybridSelectorOptions = {}) {
    const { cache, timeoutMs, vectors, learned, learnedCache, ...derivable } = options;
    const { adaptive, synonyms = [], phrases = [], coreTools = [], multiIntent = true, links } = derivable;
    const lexicon = derivable.lexicon;
    this.#lexicon = lexicon;
    this.#derivable = derivable;
    // Only the numbers are read from #options; adaptive and multiIntent resolve below.
    this.#options = mergeOptions(HYBRID_DEFAULTS, derivable);
    const { topK: k, denseWeight } = this.#options;
    assertTopK(k);
    if (!(denseWeight >= 0 && denseWeight <= 1))
      throw new RangeError(`denseWeight must be within 0..1, got ${denseWeight}`);
    if (!(this.#options.nameWeight >= 0 && this.#options.nameWeight <= 1))
      throw new RangeError(`nameWeight must be within 0..1, got ${this.#options.nameWeight}`);
    this.#adaptive = adaptive ? mergeOptions(HYBRID_DEFAULTS.adaptive, adaptive === true ? {} : adaptive) : undefined;
    this.name = this.#adaptive ? 'hybrid-adaptive' : 'hybrid';
    if (embedder instanceof EmbeddingSelector) {
      const cached = cache ? embedder.withCache(cache) : embedder;
      const seeded = vectors !== undefined ? cached.withVectors(vectors) : cached;
      // Learning options apply to an embedding selector passed in too (the named table builds
      // every hybrid that way); without them it keeps its own.
      const learning = seeded.withLearning({ learned, learnedCache });
      this.#dense = timeoutMs !== undefined ? learning.withTimeout(timeoutMs) : learning;
    } else {
      this.#dense = new EmbeddingSelector(embedder, { cache, timeoutMs, vectors, learned, learnedCache });
    }
    this.#multiIntent = multiIntent
      ? mergeOptions(HYBRID_DEFAULTS.multiIntent, multiIntent === true ? {} : multiIntent)
      : undefined;
    this.#table = lexiconSynonyms(lexicon, synonyms, phrases);
    this.#core = new Set(coreTools);
    const budget = links === false ? 0 : (links?.budget ?? 2);
    if (!(Number.isInteger(budget) && budget >= 0 && budget <= 64))
      throw new RangeError(`links.budget must be 0..64, got ${budget}`);
    this.#links = links === false ? undefined : { ...links, budget };
    // Shipped links were inferred with the default options; declared or uninferred ones differ.
    const { declared, infer } = links || {};
    this.#linkSource = {
      options: { ...links, budget },
      cache: new WeakMap(),
      ...(declared || infer === false ? {} : { shipped: new WeakMap() }),
      counts: this.#derived,
      // Only the default lexicon's state ships (the file's was derived with it).
      ...(lexicon ? {} : { seeding: new WeakMap() }),
      dense: this.#dense,
      lexicon,
    };
    this.#settings = {
      denseWeight,
      nameWeight: this.#options.nameWeight,
      parameters: this.#multiIntent?.parameters ?? 0,
    };
  }

  /**
   * The tool links this selector follows for a registry list: inferred from the tools' names,
   * parameters and descriptions (with their vectors once the corpus loads) and declared ones,
   * with warnings for what was ignored. Computed once per list (registry generation). Check
   * them, and correct a wrong one by declaring that tool's needs (`[]` for none).
   *
   * @example
   * const { links, warnings } = await selector.toolLinks(registry.schemas())
   * // [{ tool: 'assign_task', parameter: 'task_id', entity: 'task', providers: ['search_tasks'], source: 'inferred' }]
   */
  async toolLinks(all: readonly ToolSchema[], signal?: AbortSignal): Promise<ToolLinks> {
    return (await import('./whole-task.js')).linksFor(this.#linkSource, all, signal);
  }

  /**
   * What this selector derived per tool list and what it took from a vectors file instead:
   * `seeded` lists whose documents and words came from the file's derived state, `shipped`
   * lists whose tool links did, `inferred` lists whose links were inferred (and their kind
   * links embedded).
   *
   * @example
   * await selector.select(ctx, all)
   * selector.derivedStats // { seeded: 1, shipped: 1, inferred: 0 } with a matching file
   */
  get derivedStats(): { readonly seeded: number; readonly shipped: number; readonly inferred: number } {
    return { ...this.#derived };
  }

  /** How long a turn waits for the embedding half (`undefined`: no timeout). */
  get timeoutMs(): number | undefined {
    return this.#dense.timeoutMs;
  }

  /**
   * A copy with these options over this selector's, merged by `mergeOptions` (a key left
   * `undefined` keeps this selector's): the one way to derive a configured selector. It shares
   * this selector's embedding half, with the cache, vectors, timeout and learning options
   * given here applied to it (see {@link EmbeddingSelector.extend}).
   *
   * @example
   * const narrow = selector.extend({ topK: 4, multiIntent: false })
   */
  extend(options: HybridSelectorOptions): HybridSelector {
    return new HybridSelector(this.#dense, mergeOptions(this.#derivable, options));
  }

  /**
   * A copy advertising `k` tools per turn; it shares this selector's warm corpus.
   *
   * @example
   * const narrow = selector.withTopK(4)
   */
  withTopK(k: number): HybridSelector {
    return this.extend({ topK: k });
  }

  /**
   * A copy that unions these tools (appended to any it already has) into every non-empty selection.
   *
   * @example
   * const withBasics = selector.withCoreTools(['read_file'])
   */
  withCoreTools(names: readonly string[]): HybridSelector {
    return this.extend({ coreTools: [...(this.#derivable.coreTools ?? []), ...names] });
  }

  /** The embedding half (its corpus stats and cache). */
  get dense(): EmbeddingSelector {
    return this.#dense;
  }

  /**
   * Learn from this registry's own traffic (see {@link EmbeddingSelector.learn}): later prompts
   * near a learned one see its tools voted up in the blend, and the dense half ranks through
   * the learned query projection when its held-out check says it helps. Stored with the corpus
   * vectors.
   *
   * @example
   * const summary = await selector.learn(
   *   [{ query: 'post the error to #eng', tools: ['slack_post_message'] }],
   *   { tools: registry.schemas() },
   * )
   */
  learn(examples: readonly LearnExample[], options?: LearnOptions): Promise<LearnSummary> {
    return this.#dense.learn(examples, options);
  }

  /**
   * Forget every learned example, in memory and in the cache.
   *
   * @example
   * await selector.clearLearned()
   */
  clearLearned(): Promise<void> {
    return this.#dense.clearLearned();
  }

  /** How many prompts are learned. */
  get learnedCount(): number {
    return this.#dense.learnedCount;
  }

  /**
   * Whether the dense half's learned query projection applies (see {@link ProjectionState}).
   *
   * @example
   * await selector.learn(examples, { tools })
   * selector.learnedProjection?.applied
   */
  get learnedProjection(): ProjectionState | undefined {
    return this.#dense.learnedProjection;
  }

  /**
   * The tools to advertise this turn (registry order) with each one's blended score and its
   * parts, ranking on the lexical half alone (with a warning) when the embedding cannot rank,
   * or the full surface with `fellOpen` when neither half can.
   *
   * @example
   * const { tools, reasons, warnings } = await selector.select(ctx, all, { signal })
   */
  async select(ctx: SelectionContext, all: readonly ToolSchema[], options?: SelectOptions): Promise<SelectorOutput> {
    const signal = options?.signal;
    signal?.throwIfAborted();
    if (all.length === 0) return { tools: [] };
    const query = ctx.latestUserMessage ?? '';

    // The ranking stages load with the first selection, multi-intent ranking with the first
    // that uses it (neither is needed to import loopctl).
    const rank = await import('./hybrid-ranking.js');
    const intent = this.#multiIntent ? await import('./multi-intent.js') : undefined;
    // The whole prompt and its clauses, read with the lexicon (its rules skipped, with a warning,
    // where it does not cover the prompt). `intent` loads only with multiIntent set, so the
    // cast holds (and the core ships one test, not two).
    const prompt = intent
      ? await intent.promptTexts(query, this.#multiIntent as MultiIntentOptions, this.#lexicon)
      : undefined;
    const { texts, enumerated } = prompt ?? { texts: [query], enumerated: false };
    const snapshot = registrySnapshot(all);
    // The dense half starts first, so the texts embed on the model's thread while this one reads
    // the shipped state, builds the lexical index (a first turn's digest, decode and BM25) and
    // scores the texts' words.
    // It is awaited below; a rejection meanwhile (an abort) must not go unhandled.
    const scoring = this.#dense.scoreQueries(texts, all, signal ? { signal } : {});
    scoring.catch(() => undefined);
    // What the vectors file ships for this list (documents, words, links), before any is derived.
    const seeded = await rank.shippedState(this.#dense, this.#linkSource, all, signal);
    // The registry's BM25 index for this selector's k1, b and stemmer, built once per registry list.
    const lexicon = snapshot.get(rank.hybridLexicon(this.#options.k1, this.#options.b, this.#lexicon?.stem ?? stem));
    const words = texts.map((text) => this.queryWords(text));
    const lexical = words.map((list) => rank.lexicalEvidence(lexicon.index, list, this.#options.lexicalFloor));
    const dense = await scoring;
    signal?.throwIfAborted();

    const warnings = [...dense.warnings, ...seeded, ...(prompt?.warnings ?? [])];
    const whole = lexical[0] as LexicalEvidence;
    if (!dense.ok) {
      if (whole.max <= 0)
        return fullSurface(
          all,
          this.#core,
          `no lexical match and the embedding could not rank: ${dense.reason}`,
          warnings,
        );
      warnings.push(`embedding unavailable, ranking on the lexical half only: ${dense.reason}`);
    }
    const task = this.#links || this.#dense.learnedCount > 0 ? await import('./whole-task.js') : undefined;
    const turn: RankTurn = {
      lexicon: prompt?.lexicon,
      stem: this.#lexicon?.stem ?? stem,
      texts,
      words,
      lexical,
      dense: dense.ok ? dense.scores : undefined,
      vector: dense.ok ? dense.vectors[0] : undefined,
      clauses: [],
      settings: this.#settings,
      learning: this.#dense,
    };
    const ranking = rank.rankTurn(rank.hybridStages(intent, task), snapshot, turn);
    const fused = ranking.score;
    const clauseRankings = ranking.clauses.map((scores) => ({ fused: scores }));

    const picks = this.#pick(fused, dense.ok ? all.length : positives(whole.scores));
    const ranked = task ? task.keepUnseen(all, picks, ranking, turn.vector, this.#dense) : picks;
    const picked = intent && enumerated ? intent.sharePicks(ranked, intent.itemBests(clauseRankings), fused) : ranked;
    // Each clause's best tool: beyond k, from the same budget as prerequisites.
    const intents = intent && !enumerated && this.#multiIntent?.clauseSlots ? intent.itemBests(clauseRankings) : [];
    const needed = this.#links
      ? await task?.prerequisites(this.#linkSource, {
          all,
          picked,
          fused,
          query,
          intents,
          denseOk: dense.ok,
          warnings,
          signal,
        })
      : undefined;
    const { tools, reasons } = rank.reportPicks({
      all,
      core: this.#core,
      picked,
      extra: needed?.extra ?? [],
      fused,
      words: words[0] as string[],
      lexicon,
      contributions: ranking.contributions,
    });
    task?.annotate(reasons, all, needed);
    return { tools, reasons, ...(warnings.length ? { warnings } : {}) };
  }

  /** The lexical query words: tokens, synonym expansion, then stems. */
  queryWords(query: string): string[] {
    return [
      ...new Set(expandQuery(textTokens(query, this.#lexicon), query, this.#table).map(this.#lexicon?.stem ?? stem)),
    ];
  }

  #pick(fused: Float64Array, rankable: number): number[] {
    const limit = Math.min(rankable, fused.length);
    const adaptive = this.#adaptive;
    if (!adaptive) return topK(fused, Math.min(this.#options.topK, limit));
    const ranked = topK(fused, Math.min(Math.max(adaptive.floor, adaptive.ceiling), limit));
    const keep = adaptiveCut(
      ranked.map((i) => fused[i] as number),
      { floor: adaptive.floor, ceiling: adaptive.ceiling, span: adaptive.span, relative: adaptive.relative },
    );
    return ranked.slice(0, keep);
  }
}

function positives(values: ArrayLike<number>): number {
  let count = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > 0) count++;
  return count;
}
