/**
 * Where a dense selector's learned examples live: an {@link ExampleMemory} in memory, kept in
 * step with the registry generation and persisted through the selector's own
 * {@link VectorCache} beside the corpus vectors (IndexedDB, KV, a file). Nothing is sent
 * anywhere; {@link LearnedStore.clear} forgets it all.
 *
 * Entries: `learned:v1:<embedder>:<dims>:<generation>` holds a generation's examples, and
 * `learned:v1:<embedder>:<dims>:latest` names the last one written. A load always follows the
 * pointer, so a new generation (a tool added, removed or edited, or a reload into a changed
 * registry) starts from the newest examples minus the tools that are gone.
 */

import { errorMessage } from '../describe-error.js';
import type { Corpus, CorpusIndex } from '../embed/corpus-index.js';
import { taskQueue } from '../embed/one-at-a-time.js';
import type { VectorCache } from '../embed/vector-cache.js';
import { Hash64 } from '../hash.js';
import { type Derivation, registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { decodeExamples, encodeExamples } from './example-codec.js';
import type { LearnExample, LearnedVoteOptions } from './example-memory.js';
import { ExampleMemory, MAX_EXAMPLE_CHARS } from './example-memory.js';
import { type Pacer, timeSlices } from './pacer.js';
import type { ProjectionDeclined, ProjectionOptions, QueryProjection } from './query-projection.js';
import { fitProjection, projectQuery } from './query-projection.js';
import { PAIR_DEFAULTS, partnerLifts } from './tool-pairs.js';

// The names the examples' votes are keyed by, in registry order.
const toolNames: Derivation<readonly string[]> = ({ tools }) => tools.map((tool) => tool.name);

/** Options for a `learn` call. */
export interface LearnOptions {
  /** The registry's tools the examples refer to. Default: the list the selector last ranked. */
  tools?: readonly ToolSchema[];
  /** Cancels the embedding of new prompts. */
  signal?: AbortSignal;
  /**
   * When the query projection is refitted on the new examples: `'now'` (the default; the
   * summary reports what the fit decided) or `'background'`, on a later task, so the call
   * resolves once the examples are stored and rankings keep the map in force meanwhile (the
   * loop's recording uses it, so a recorded turn never holds up the next request).
   */
  fit?: 'now' | 'background';
}

/** What a `learn` call did. */
export interface LearnSummary {
  /** New prompts stored. */
  readonly learned: number;
  /** Known prompts that gained tools. */
  readonly updated: number;
  /** Examples already known with all their tools (or repeated within the call). */
  readonly duplicates: number;
  /** Tool names not in the registry, ignored. */
  readonly unknownTools: number;
  /** Examples not learned: a blank or non-string prompt, or no known tool. */
  readonly ignored: number;
  /** Prompts stored after the call. */
  readonly total: number;
  /** Storage trouble (the examples stay in memory) and the like. */
  readonly warnings: readonly string[];
  /** What the query-projection fit decided after this call (absent when it is off or not fitted yet). */
  readonly projection?: ProjectionState;
}

/**
 * Whether the learned query projection applies, and why: `applied` with the blend its held-out
 * check chose, or not with the reason (too few examples, or the check found no gain).
 * `heldOut` is full recall at the check's k of the learned examples scored as if each had not
 * been learned, without and with the map.
 */
export interface ProjectionState {
  readonly applied: boolean;
  readonly blend: number;
  /** Examples the map was fitted on (fewer than are stored while a background refit is pending). */
  readonly examples: number;
  readonly reason?: string;
  readonly heldOut?: { readonly before: number; readonly after: number; readonly examples: number };
}

interface LearnContext extends LearnOptions {
  readonly index: CorpusIndex;
  readonly embed: (texts: readonly string[], signal: AbortSignal | undefined) => Promise<Float32Array[]>;
  /** The registry's corpus, for fitting the query projection right after learning. */
  readonly corpus?: (all: readonly ToolSchema[], signal: AbortSignal | undefined) => Promise<Corpus>;
}

/** The query projection in force, for one registry generation and one state of the examples. */
interface FittedProjection {
  readonly key: string;
  readonly version: number;
  /** Examples stored when it was fitted. */
  readonly examples: number;
  readonly fitted: QueryProjection | ProjectionDeclined;
}

const ENCODER = new TextEncoder();

/**
 * The learned examples of one selector (shared by its derived copies).
 *
 * @example
 * const store = new LearnedStore(memoryVectorCache(), { id: embedder.id, dimensions: embedder.dimensions })
 * const { corpus } = await index.load(all)
 * const warnings = await store.reconcile(corpus, all)
 * store.votes(queryVector, all) // Float64Array aligned with all, or undefined
 * store.project(queryVector, corpus.key) // the query through the learned map, or undefined
 */
export class LearnedStore {
  readonly cache: VectorCache;
  readonly memory: ExampleMemory;
  // The pointer to the newest entry, per embedder (the same id hash corpus keys use).
  readonly #latest: string;
  #generation: string | undefined;
  #loaded = false;
  #lastTools: readonly ToolSchema[] | undefined;
  // One at a time: two learns (or a learn and a generation change) never interleave writes.
  readonly #serial = taskQueue();
  readonly #projectionOptions: ProjectionOptions | false;
  #projection: FittedProjection | undefined;
  // When a background refit was last scheduled (0: none pending).
  #fitScheduledAt = 0;

  constructor(
    cache: VectorCache,
    embedder: { readonly id: string; readonly dimensions: number },
    options?: LearnedVoteOptions,
  ) {
    this.cache = cache;
    this.#projectionOptions = options?.projection ?? {};
    this.memory = new ExampleMemory(embedder.dimensions, options);
    this.#latest = `learned:v1:${new Hash64().update(embedder.id).digest().slice(0, 8)}:${embedder.dimensions}:latest`;
  }

  get size(): number {
    return this.memory.size;
  }

  /**
   * The learned partners of `anchors` (tools used together with them) and each one's lift, on
   * the ranking's 0..1 scale; empty when pairs are off or nothing pairs.
   */
  partners(anchors: readonly string[]): Map<string, number> {
    const options = this.memory.options.pairs;
    if (this.memory.size === 0 || options === false) return new Map();
    return partnerLifts(this.memory.pairs, anchors, options.weight ?? PAIR_DEFAULTS.weight);
  }

  /** Usage-prototype lifts for `all`'s tools (see {@link ExampleMemory.usage}). */
  usage(vector: Float32Array, all: readonly ToolSchema[]): Float64Array | undefined {
    if (this.memory.size === 0) return undefined;
    return this.memory.usage(vector, registrySnapshot(all).get(toolNames));
  }

  /** Votes for `all`'s tools (see {@link ExampleMemory.votes}). */
  votes(vector: Float32Array, all: readonly ToolSchema[]): Float64Array | undefined {
    if (this.memory.size === 0) return undefined;
    return this.memory.votes(vector, registrySnapshot(all).get(toolNames));
  }

  /**
   * The query through the learned projection, when one is fitted for this corpus and its
   * held-out check chose to apply it; otherwise undefined (rank with the query as it is). A map
   * fitted before the newest examples stays in force until its refit lands. Synchronous: one
   * ranking sees one map.
   */
  project(vector: Float32Array, corpusKey: string): Float32Array | undefined {
    const current = this.#projection;
    if (!current?.fitted.delta || current.key !== corpusKey) return undefined;
    if (vector.length !== current.fitted.dimensions) return undefined;
    // A prompt unlike every example ranks as without learning.
    if (!this.memory.near(vector)) return undefined;
    return projectQuery(current.fitted, vector);
  }

  /** What the last projection fit decided, or undefined when it is off or not fitted yet. */
  get projection(): ProjectionState | undefined {
    const current = this.#projection;
    if (!current) return undefined;
    const { fitted } = current;
    const { examples } = current;
    if (fitted.delta) return { applied: true, blend: fitted.blend, examples, heldOut: fitted.check };
    return {
      applied: false,
      blend: 0,
      examples,
      reason: fitted.reason,
      ...(fitted.check ? { heldOut: fitted.check } : {}),
    };
  }

  /**
   * Fit the projection for `corpus` if the examples or the generation changed since the last
   * fit. Cheap when fresh; a few thousand examples take well under a second, in time slices
   * that give the thread back (a browser's main thread keeps answering input meanwhile).
   * Callers hold the queue, so the examples cannot change under a fit.
   */
  async refit(corpus: Corpus, all: readonly ToolSchema[], pace: Pacer = timeSlices()): Promise<void> {
    const version = this.memory.version;
    if (
      this.#projectionOptions === false ||
      (this.#projection?.key === corpus.key && this.#projection.version === version)
    )
      return;
    if (this.memory.size === 0 || corpus.count !== all.length || corpus.dimensions !== this.memory.dimensions) {
      this.#projection = { key: corpus.key, version, examples: this.memory.size, fitted: { reason: 'no examples' } };
      return;
    }
    const row = new Map<string, number>();
    all.forEach((tool, i) => {
      row.set(tool.name, i);
    });
    const examples = this.memory
      .keyedExamples()
      .map(({ key, vector, tools }) => ({ vector, tools: tools.map((name) => row.get(name) ?? -1), key }));
    const fitted = await fitProjection(
      examples,
      corpus.matrix,
      corpus.count,
      corpus.dimensions,
      this.#projectionOptions,
      pace,
    );
    this.#projection = { key: corpus.key, version, examples: examples.length, fitted };
  }

  /**
   * Bring the examples in step with a registry generation: load stored ones the first time,
   * drop tools that are gone, persist under the new generation. Cheap when nothing changed.
   * Returns warnings (a corrupt entry discarded, a failed write); never throws.
   */
  async reconcile(corpus: Corpus, all: readonly ToolSchema[], signal?: AbortSignal): Promise<string[]> {
    this.#lastTools = all;
    if (this.#generation === corpus.key && this.#fresh(corpus.key)) return [];
    // New examples since this corpus's map was fitted: rank with that map and refit later, so
    // a selection never waits for a fit it can do without.
    if (this.#generation === corpus.key && this.#projection?.key === corpus.key) {
      this.#fitLater(corpus.key, all, async () => corpus);
      return [];
    }
    return this.#serial(async () => {
      signal?.throwIfAborted();
      const warnings = await this.#reconcileNow(corpus.key, all);
      await this.refit(corpus, all);
      return warnings;
    });
  }

  // Whether the projection matches the examples (or there is none to fit).
  #fresh(corpusKey: string): boolean {
    return (
      this.#projectionOptions === false ||
      (this.#projection?.key === corpusKey && this.#projection.version === this.memory.version)
    );
  }

  /**
   * Learn examples (see `EmbeddingSelector.learn`): `context` carries the selector's corpus
   * index, its query embedder and, to refit right away, its corpus loader.
   */
  learn(examples: readonly LearnExample[], context: LearnContext): Promise<LearnSummary> {
    if (!Array.isArray(examples))
      return Promise.reject(new TypeError('learn expects an array of { query, tools } examples'));
    const all = context.tools ?? this.#lastTools;
    if (!all) {
      return Promise.reject(
        new TypeError(
          "learn needs the registry's tools: pass { tools: registry.schemas() }, or let the selector rank once first",
        ),
      );
    }
    if (!Array.isArray(all)) return Promise.reject(new TypeError("learn: tools must be the registry's tool list"));
    // Started now, so the key is of the list as it is at this call (the hash itself is async).
    const keyOfList = context.index.keyFor(all);
    keyOfList.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
    return this.#serial(async () => {
      const corpusKey = await keyOfList;
      const warnings = await this.#reconcileNow(corpusKey, all);
      const known = new Set(all.map((tool) => tool.name));
      let unknownTools = 0;
      let ignored = 0;
      let duplicates = 0;
      // Merge within the call first: one prompt, one entry. A big batch gives the thread back
      // between slices here, before any example is added (a ranking meanwhile sees all or none).
      const pace = timeSlices();
      const batch = new Map<string, { query: string; tools: Set<string> }>();
      for (const example of examples) {
        if (pace.due()) await pace.pause();
        const query =
          example && typeof example.query === 'string' ? example.query.trim().slice(0, MAX_EXAMPLE_CHARS).trim() : '';
        const names = example && Array.isArray(example.tools) ? example.tools : [];
        const tools = new Set<string>();
        for (const name of names) {
          if (typeof name === 'string' && known.has(name)) tools.add(name);
          else unknownTools++;
        }
        if (query === '' || tools.size === 0) {
          ignored++;
          continue;
        }
        const key = ExampleMemory.keyOf(query);
        const pending = batch.get(key);
        if (pending) {
          const before = pending.tools.size;
          for (const tool of tools) pending.tools.add(tool);
          if (pending.tools.size === before) duplicates++;
          continue;
        }
        if (this.memory.covers(query, [...tools])) {
          duplicates++;
          continue;
        }
        batch.set(key, { query, tools });
      }

      const unseen = [...batch.values()].filter(({ query }) => !this.memory.vectorOf(query));
      const vectors = new Map<string, Float32Array>();
      for (let start = 0; start < unseen.length; start += 64) {
        if (pace.due()) await pace.pause();
        context.signal?.throwIfAborted();
        const chunk = unseen.slice(start, start + 64);
        const embedded = await context.embed(
          chunk.map(({ query }) => query),
          context.signal,
        );
        chunk.forEach(({ query }, i) => {
          vectors.set(query, embedded[i] as Float32Array);
        });
      }
      context.signal?.throwIfAborted();

      let learned = 0;
      let updated = 0;
      for (const { query, tools } of batch.values()) {
        const vector = this.memory.vectorOf(query) ?? vectors.get(query);
        if (!vector) continue;
        const outcome = this.memory.add({ query, tools: [...tools], vector });
        if (outcome === 'new') learned++;
        else if (outcome === 'updated') updated++;
        else duplicates++;
      }
      if (pace.due()) await pace.pause();
      if (learned + updated > 0) warnings.push(...(await this.#persist(corpusKey)));
      // Fit the projection now (or on a later task) rather than on the next ranking; a corpus
      // that cannot load here is fitted on the next ranking instead.
      const { corpus } = context;
      const stale = corpus !== undefined && !this.#fresh(corpusKey);
      if (stale && context.fit === 'background') this.#fitLater(corpusKey, all, () => corpus(all, undefined));
      else if (stale) {
        try {
          await this.refit(await corpus(all, context.signal), all, pace);
        } catch (error) {
          context.signal?.throwIfAborted();
          warnings.push(`query projection not fitted yet (${errorMessage(error)})`);
        }
      }
      const projection = this.projection;
      return {
        learned,
        updated,
        duplicates,
        unknownTools,
        ignored,
        total: this.memory.size,
        warnings,
        ...(projection ? { projection } : {}),
      };
    });
  }

  /** Forget every example, in memory and in storage. */
  clear(): Promise<void> {
    return this.#serial(async () => {
      this.memory.clear();
      this.#projection = undefined;
      this.#loaded = true;
      const generation = this.#generation;
      for (const key of [this.#latest, ...(generation ? [learnedKey(generation)] : [])]) {
        try {
          if (this.cache.delete) await this.cache.delete(key);
          else await this.cache.set(key, encodeExamples([], this.memory.dimensions));
        } catch {
          // Memory is clear; a stale entry is reconciled on the next load.
        }
      }
    });
  }

  // Refit on a later task, through the queue (after any learn in flight), once however often
  // it is asked for; a fit that fails is retried by the next ranking. A timer the runtime
  // dropped (a Worker's request ended first) blocks nothing: after a second anyone reschedules.
  #fitLater(corpusKey: string, all: readonly ToolSchema[], corpus: () => Promise<Corpus>): void {
    if (this.#projectionOptions === false || Date.now() - this.#fitScheduledAt < 1000) return;
    this.#fitScheduledAt = Date.now();
    setTimeout(() => {
      this.#serial(async () => {
        this.#fitScheduledAt = 0;
        if (this.#generation !== corpusKey || this.#fresh(corpusKey)) return;
        await this.refit(await corpus(), all);
      }).catch(() => {
        this.#fitScheduledAt = 0;
      });
    }, 0);
  }

  async #reconcileNow(corpusKey: string, all: readonly ToolSchema[]): Promise<string[]> {
    if (this.#generation === corpusKey) return [];
    const warnings: string[] = [];
    let carried = false;
    if (!this.#loaded) {
      this.#loaded = true;
      // Always through the latest pointer: the newest examples win, and a cleared store stays
      // clear even if an older generation's entry lingers.
      const pointer = await this.#readBytes(this.#latest, warnings);
      const previous = pointer ? new TextDecoder().decode(pointer) : undefined;
      const stored = previous?.startsWith('learned:v1:') ? await this.#read(previous, warnings) : undefined;
      carried = stored !== undefined && previous !== learnedKey(corpusKey);
      const fresh = this.memory.examples();
      if (stored) {
        this.memory.clear();
        for (const example of [...stored, ...fresh]) {
          if (example.vector.length === this.memory.dimensions) this.memory.add(example);
        }
      }
    }
    const { dropped, changed } = this.memory.retain(new Set(all.map((tool) => tool.name)));
    const previous = this.#generation;
    this.#generation = corpusKey;
    if (this.memory.size > 0 && (carried || changed || dropped > 0 || previous !== undefined)) {
      warnings.push(...(await this.#persist(corpusKey)));
    }
    return warnings;
  }

  async #read(key: string, warnings: string[]): Promise<ReturnType<ExampleMemory['examples']> | undefined> {
    const bytes = await this.#readBytes(key, warnings);
    if (!bytes) return undefined;
    const decoded = decodeExamples(bytes, this.memory.dimensions);
    if (decoded.ok) return decoded.examples;
    warnings.push(`learned examples entry discarded (${decoded.reason}); starting over`);
    try {
      await this.cache.delete?.(key);
    } catch {
      // The next write replaces it anyway.
    }
    return undefined;
  }

  async #readBytes(key: string, warnings: string[]): Promise<Uint8Array | undefined> {
    try {
      const bytes = await this.cache.get(key);
      return bytes instanceof Uint8Array ? bytes : undefined;
    } catch (error) {
      warnings.push(`learned examples read failed (${errorMessage(error)})`);
      return undefined;
    }
  }

  async #persist(corpusKey: string): Promise<string[]> {
    try {
      const key = learnedKey(corpusKey);
      await this.cache.set(key, encodeExamples(this.memory.examples(), this.memory.dimensions));
      await this.cache.set(this.#latest, ENCODER.encode(key));
      return [];
    } catch (error) {
      return [`learned examples write failed (${errorMessage(error)}); they stay in memory only`];
    }
  }
}

// corpus:v2:<embedder hash>:<count>x<dims>:<generation SHA-256>
function parts(corpusKey: string): { embedder: string; dims: string; generation: string } {
  const [, , embedder = '', shape = '', generation = ''] = corpusKey.split(':');
  return { embedder, dims: shape.split('x')[1] ?? '', generation };
}

function learnedKey(corpusKey: string): string {
  const { embedder, dims, generation } = parts(corpusKey);
  return `learned:v1:${embedder}:${dims}:${generation}`;
}
