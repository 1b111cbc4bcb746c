/**
 * The corpus vectors for a registry's tool list: one unit vector per tool, in registry order,
 * in one contiguous `Float32Array`. A generation is the ordered (name, embedded text) list
 * under one embedder; its key hashes all of them, so a rename, a reorder or an edited
 * description is a new generation. Building a new generation re-embeds only texts it has not
 * seen before; the whole matrix is persisted to the {@link VectorCache} as one checked entry.
 */

import { errorMessage } from '../describe-error.js';
import { Hash64 } from '../hash.js';
import { raceAbort } from '../limits/abort.js';
import { mergeOptions } from '../options.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolText } from '../text/words.js';
import { CorpusError } from './corpus-error.js';
import type { Embedder, EmbedProgress } from './embedder.js';
import { lruSet, lruTrim } from './lru.js';
import type { VectorCache } from './vector-cache.js';
import type { VectorsFile } from './vectors-file.js';
import type { LoadedVectors, VectorsSource } from './vectors-source.js';

/** Counters for tests, demos and dashboards. */
export interface CorpusStats {
  /** Texts sent to the embedder for the corpus (the query is not counted). */
  readonly corpusEmbeds: number;
  /** Generations loaded from a valid VectorCache entry. */
  readonly cacheHits: number;
  /** Generations the VectorCache did not hold (absent or discarded), so were built. */
  readonly cacheMisses: number;
  /** VectorCache entries discarded as corrupt or mismatched, then rebuilt. */
  readonly rebuiltCorrupt: number;
  /** Generations served from memory (built or loaded earlier by any index sharing the cache). */
  readonly memoryHits: number;
  /** Texts a build took from the in-memory per-text store instead of embedding. */
  readonly reusedTexts: number;
  /** Loads that waited on a build already in flight instead of starting their own. */
  readonly joined: number;
  /** Texts a build took from the precomputed vectors file instead of embedding. */
  readonly seededTexts: number;
}

/** One generation's vectors. */
export interface Corpus {
  /** The VectorCache key: embedder id, dimensions, ordered names and texts, hashed. */
  readonly key: string;
  readonly dimensions: number;
  readonly count: number;
  /** Row-major `count × dimensions`, unit-length rows, registry order. Do not mutate. */
  readonly matrix: Float32Array;
  /** The embedded texts, registry order. */
  readonly texts: readonly string[];
}

/** What {@link CorpusIndex.load} returns: the corpus, plus degradations met loading it. */
export interface CorpusLoad {
  readonly corpus: Corpus;
  /** E.g. a corrupt cache entry rebuilt, a cache write that failed. Empty on warm turns. */
  readonly warnings: readonly string[];
}

/** Options for {@link CorpusIndex}. */
export interface CorpusIndexOptions {
  /** Called as corpus texts are embedded: `{ phase: 'corpus', done, total }` texts. */
  onProgress?: (progress: EmbedProgress) => void;
  /** Texts per embed call. Default 256 (embedders bucket a call by length, so bigger calls pad less). */
  batchSize?: number;
  /** Per-text vectors kept in memory across generations (at least one generation's worth). Default 8192. */
  maxTexts?: number;
  /**
   * Most texts one load embeds. A generation needing more embeds this many (kept for the next
   * load), then rejects with a {@link CorpusError}, so a request that brings a big new tool list
   * costs a bounded slice of embedding work and the list is whole after a few loads. Default:
   * no limit.
   */
  maxNewTexts?: number;
  /**
   * A precomputed vectors file (`loopctl vectors`): texts it holds are taken from it instead of
   * embedded. Loaded once, on the first build that needs a text; a file that cannot be read,
   * or was built by another embedder or for other dimensions, or is corrupt, is ignored with a
   * warning.
   */
  vectors?: VectorsSource;
}

/** A registry list's identity and key, memoised so a warm turn never rehashes the corpus. */
interface Fingerprint {
  readonly key: string;
  /** The SHA-256 the key ends with: stored in the entry's header and checked on every read. */
  readonly keyDigest: Uint8Array;
  readonly tools: readonly ToolSchema[];
  readonly names: readonly string[];
  readonly descriptions: readonly string[];
  readonly texts: readonly string[];
}

interface Inflight {
  readonly promise: Promise<CorpusLoad>;
  readonly controller: AbortController;
  waiters: number;
  settled: boolean;
}

/**
 * State shared by every index over the same VectorCache object: per-text vectors (keyed by
 * embedder id and dimensions, then text), recent generations, and builds in flight. Sharing a
 * cache therefore shares the work: two selectors never embed the same generation twice.
 */
interface SharedState {
  readonly texts: Map<string, Map<string, Float32Array>>;
  readonly generations: Map<string, Corpus>;
  readonly inflight: Map<string, Inflight>;
  /** Keys being hashed, by a quick hash of the content: concurrent loads of one list share one. */
  readonly hashing: Map<string, Promise<Fingerprint>>;
}

const MAX_GENERATIONS = 4;
const shared = new WeakMap<VectorCache, SharedState>();

function sharedState(cache: VectorCache): SharedState {
  let state = shared.get(cache);
  if (!state) {
    state = { texts: new Map(), generations: new Map(), inflight: new Map(), hashing: new Map() };
    shared.set(cache, state);
  }
  return state;
}

/**
 * Corpus vectors for whatever tool list a turn hands over, cached per generation.
 *
 * @example
 * const index = new CorpusIndex(embedder, memoryVectorCache())
 * const { corpus } = await index.load(registry.schemas(), { signal })
 * corpus.matrix // count × dimensions unit vectors, registry order
 * index.stats.corpusEmbeds // texts embedded so far
 */
export class CorpusIndex {
  readonly embedder: Embedder;
  readonly cache: VectorCache;
  private readonly options: Required<Omit<CorpusIndexOptions, 'onProgress' | 'vectors' | 'maxNewTexts'>> &
    Pick<CorpusIndexOptions, 'onProgress' | 'vectors' | 'maxNewTexts'>;
  private seed: Promise<LoadedVectors> | undefined;
  private seedReported = false;
  private readonly state: SharedState;
  private readonly memo = new WeakMap<readonly ToolSchema[], Fingerprint>();
  // Lists whose memo entry cannot go stale: frozen, of frozen schemas, and checked once. A warm
  // turn over one skips comparing every tool (0.7 ms a search at 10,000 tools).
  private readonly fixed = new WeakSet<readonly ToolSchema[]>();
  private current: { fingerprint: Fingerprint; load: CorpusLoad } | undefined;
  private counters = {
    corpusEmbeds: 0,
    cacheHits: 0,
    cacheMisses: 0,
    rebuiltCorrupt: 0,
    memoryHits: 0,
    reusedTexts: 0,
    joined: 0,
    seededTexts: 0,
  };

  constructor(embedder: Embedder, cache: VectorCache, options: CorpusIndexOptions = {}) {
    this.embedder = embedder;
    this.cache = cache;
    this.options = mergeOptions({ batchSize: 256, maxTexts: 8192 }, options);
    this.state = sharedState(cache);
  }

  /** A snapshot of this index's counters. */
  get stats(): CorpusStats {
    return { ...this.counters };
  }

  /**
   * The cache key for a tool list: a SHA-256 of the embedder id, dimensions, ordered names and
   * embedded texts, so no chosen tool list can reach another list's key (a shared cache stays
   * each list's own).
   *
   * @example
   * (await index.keyFor(all)) === (await index.keyFor([...all])) // true: content, not array identity
   */
  async keyFor(all: readonly ToolSchema[]): Promise<string> {
    return (await this.fingerprint(all)).key;
  }

  /**
   * The corpus for `all`. Warm (same generation as last time): no hashing, no I/O. Otherwise
   * memory, then the VectorCache, then a build that embeds only unseen texts. Concurrent
   * loads of one generation share one build. Rejects with the signal's reason on abort, and
   * with the embedder's error (or a {@link CorpusError}) when the corpus cannot be built.
   *
   * @example
   * const { corpus, warnings } = await index.load(all, { signal })
   */
  async load(all: readonly ToolSchema[], options: { signal?: AbortSignal } = {}): Promise<CorpusLoad> {
    const { signal } = options;
    signal?.throwIfAborted();
    const fingerprint = await this.fingerprint(all);
    signal?.throwIfAborted();
    const current = this.current;
    if (current && current.fingerprint.key === fingerprint.key) return current.load;

    const remembered = this.state.generations.get(fingerprint.key);
    if (remembered) {
      this.counters.memoryHits++;
      return this.adopt(fingerprint, { corpus: remembered, warnings: [] });
    }

    let inflight = this.state.inflight.get(fingerprint.key);
    if (inflight) this.counters.joined++;
    else inflight = this.startBuild(fingerprint);
    const load = await this.wait(inflight, fingerprint.key, signal);
    return this.adopt(fingerprint, load);
  }

  private adopt(fingerprint: Fingerprint, load: CorpusLoad): CorpusLoad {
    // Later warm turns return a load without the one-off warnings.
    this.current = { fingerprint, load: load.warnings.length === 0 ? load : { corpus: load.corpus, warnings: [] } };
    return load;
  }

  private async fingerprint(all: readonly ToolSchema[]): Promise<Fingerprint> {
    const memoised = this.memo.get(all);
    if (memoised && (this.fixed.has(all) || sameList(memoised, all))) return this.memoise(all, memoised);
    // A registry that hands out a fresh array of the same schemas each turn stays warm too.
    const current = this.current?.fingerprint;
    if (current && sameList(current, all)) return this.memoise(all, current);
    // The key's hash is async: loads of the same new list meanwhile share it, so they reach the
    // same build together (the quick hash only finds the entry; the content is compared).
    const { id, dimensions } = this.embedder;
    const quick = new Hash64().update(id).update(String(dimensions));
    for (const tool of all) quick.update(String(tool.name)).update(String(tool.description));
    const hint = quick.digest();
    const hashing = this.state.hashing;
    let pending = hashing.get(hint);
    if (!pending) {
      pending = computeFingerprint(this.embedder, all);
      hashing.set(hint, pending);
      const done = (): void => void hashing.delete(hint);
      pending.then(done, done);
    }
    let fingerprint = await pending;
    if (!sameList(fingerprint, all)) {
      fingerprint = sameContent(fingerprint, all)
        ? { ...fingerprint, tools: [...all] } // other schema objects, same key
        : await computeFingerprint(this.embedder, all);
    }
    return this.memoise(all, fingerprint);
  }

  // Remember a list's fingerprint (checked against it by the caller); a frozen list of frozen
  // schemas is marked fixed.
  private memoise(all: readonly ToolSchema[], fingerprint: Fingerprint): Fingerprint {
    if (!this.fixed.has(all)) {
      this.memo.set(all, fingerprint);
      if (Object.isFrozen(all) && all.every(Object.isFrozen)) this.fixed.add(all);
    }
    return fingerprint;
  }

  private startBuild(fingerprint: Fingerprint): Inflight {
    const controller = new AbortController();
    const entry: Inflight = {
      controller,
      waiters: 0,
      settled: false,
      promise: Promise.resolve().then(() => this.build(fingerprint, controller.signal)),
    };
    const done = (): void => {
      entry.settled = true;
      if (this.state.inflight.get(fingerprint.key) === entry) this.state.inflight.delete(fingerprint.key);
    };
    entry.promise.then(done, done);
    this.state.inflight.set(fingerprint.key, entry);
    return entry;
  }

  // Each caller waits with its own signal; the build itself is aborted only when every caller
  // waiting on it has gone, so one cancelled run cannot fail another run's selection.
  private async wait(entry: Inflight, key: string, signal: AbortSignal | undefined): Promise<CorpusLoad> {
    entry.waiters++;
    try {
      return await raceAbort(entry.promise, signal);
    } finally {
      entry.waiters--;
      if (entry.waiters === 0 && !entry.settled && signal?.aborted) {
        if (this.state.inflight.get(key) === entry) this.state.inflight.delete(key);
        entry.controller.abort(signal.reason);
      }
    }
  }

  private async build(fingerprint: Fingerprint, signal: AbortSignal): Promise<CorpusLoad> {
    const { dimensions } = this.embedder;
    const count = fingerprint.texts.length;
    const shape = { dimensions, count, keyDigest: fingerprint.keyDigest };
    const warnings: string[] = [];

    let bytes: Uint8Array | undefined;
    try {
      bytes = await this.cache.get(fingerprint.key);
    } catch (error) {
      warnings.push(`vector cache read failed (${errorMessage(error)}); rebuilding the corpus`);
    }
    signal.throwIfAborted();

    // The codec loads with the first cache access: a page that never builds a corpus skips it.
    const { decodeCorpus, encodeCorpus } = await import('./corpus-codec.js');
    if (bytes !== undefined && bytes !== null) {
      const decoded = decodeCorpus(bytes, shape);
      if (decoded.ok) {
        this.counters.cacheHits++;
        const corpus = this.remember(fingerprint, decoded.matrix);
        return { corpus, warnings };
      }
      this.counters.rebuiltCorrupt++;
      warnings.push(`corpus cache entry discarded (${decoded.reason}); rebuilt`);
      try {
        await this.cache.delete?.(fingerprint.key);
      } catch {
        // The rebuilt entry overwrites it anyway.
      }
    }
    this.counters.cacheMisses++;

    const store = this.textStore();
    const unseen = fingerprint.texts.filter((text) => !store.has(text));
    this.counters.reusedTexts += count - unseen.length;
    let missing = [...new Set(unseen)];
    if (missing.length > 0 && this.options.vectors !== undefined) {
      missing = await this.takeFromVectorsFile(missing, store, warnings, signal);
    }
    // Loaded with the first build that embeds: a warm page or a seeded corpus never loads it.
    if (missing.length > 0) {
      const { embedMissing } = await import('./corpus-embed.js');
      await embedMissing(this.embedder, missing, store, {
        signal,
        batchSize: this.options.batchSize,
        maxNewTexts: this.options.maxNewTexts,
        embedded: (done, total, batch) => {
          this.counters.corpusEmbeds += batch;
          this.progress(done, total);
        },
      });
    }

    const matrix = new Float32Array(count * dimensions);
    fingerprint.texts.forEach((text, row) => {
      const vector = store.get(text);
      if (!vector) throw new CorpusError(`no vector for tool text ${preview(text)}`);
      matrix.set(vector, row * dimensions);
    });
    const corpus = this.remember(fingerprint, matrix);

    try {
      await this.cache.set(fingerprint.key, encodeCorpus(matrix, shape));
    } catch (error) {
      warnings.push(`vector cache write failed (${errorMessage(error)}); the corpus stays in memory only`);
    }
    return { corpus, warnings };
  }

  /**
   * The vectors file this index seeds from, read and verified once (shared with the corpus
   * builds; its warnings go out with the build that first uses it): undefined without one, or
   * when it was refused.
   *
   * @example
   * const file = await index.vectorsFile(signal)
   * file?.sections.get('hyb1')
   */
  async vectorsFile(signal?: AbortSignal): Promise<VectorsFile | undefined> {
    if (this.options.vectors === undefined) return undefined;
    return (await this.loadSeed(signal)).file;
  }

  private loadSeed(signal: AbortSignal | undefined): Promise<LoadedVectors> {
    const source = this.options.vectors as VectorsSource;
    // Imported on first use: apps that ship no vectors file never load the decoder.
    this.seed ??= import('./vectors-source.js')
      .then(({ loadVectors }) => loadVectors(source, this.embedder, { signal }))
      .catch((error: unknown) => {
        this.seed = undefined; // aborted mid-load: a later build tries again
        throw error;
      });
    return this.seed;
  }

  /** Move the texts the vectors file holds into the store; return the ones still missing. */
  private async takeFromVectorsFile(
    missing: readonly string[],
    store: Map<string, Float32Array>,
    warnings: string[],
    signal: AbortSignal,
  ): Promise<string[]> {
    const { file, warnings: loadWarnings } = await this.loadSeed(signal);
    signal.throwIfAborted();
    const first = !this.seedReported;
    this.seedReported = true;
    if (first) warnings.push(...loadWarnings);
    if (!file) return [...missing];

    const still: string[] = [];
    const vectors = file.vectorsFor(missing);
    missing.forEach((text, i) => {
      const vector = vectors[i];
      if (vector) store.set(text, vector);
      else still.push(text);
    });
    const taken = missing.length - still.length;
    this.counters.seededTexts += taken;
    if (taken === 0) {
      warnings.push(
        `vectors file has no entry for any of ${missing.length} tool texts (built for another registry?); embedding them`,
      );
    } else if (still.length > 0) {
      warnings.push(
        `vectors file covers ${taken} of ${missing.length} tool texts; embedding the other ${still.length} (new or changed tools)`,
      );
    }
    if (first && file.count > taken) {
      warnings.push(`vectors file holds ${file.count - taken} entries this registry does not use; ignored`);
    }
    return still;
  }

  /** Record a built or loaded generation: point per-text entries at its rows, trim, remember. */
  private remember(fingerprint: Fingerprint, matrix: Float32Array): Corpus {
    const { dimensions } = this.embedder;
    const store = this.textStore();
    fingerprint.texts.forEach((text, row) => {
      // Re-pointing at the new matrix (and moving to the recent end) lets old matrices go.
      lruSet(store, text, matrix.subarray(row * dimensions, (row + 1) * dimensions));
    });
    lruTrim(store, Math.max(this.options.maxTexts, fingerprint.texts.length));

    const corpus: Corpus = {
      key: fingerprint.key,
      dimensions,
      count: fingerprint.texts.length,
      matrix,
      texts: fingerprint.texts,
    };
    const generations = this.state.generations;
    lruSet(generations, corpus.key, corpus, MAX_GENERATIONS);
    return corpus;
  }

  private textStore(): Map<string, Float32Array> {
    const id = `${this.embedder.dimensions}\u0000${this.embedder.id}`;
    let store = this.state.texts.get(id);
    if (!store) {
      store = new Map();
      this.state.texts.set(id, store);
    }
    return store;
  }

  private progress(done: number, total: number): void {
    try {
      this.options.onProgress?.({ phase: 'corpus', done, total });
    } catch {
      // A broken progress bar must not break selection.
    }
  }
}

// The key commits to every name and text (SHA-256): shared caches (KV, files, IndexedDB) and
// the per-isolate generations are read by every tenant's requests, so a key one tool list can
// reach by choice would serve its vectors to another list.
async function computeFingerprint(embedder: Embedder, all: readonly ToolSchema[]): Promise<Fingerprint> {
  const tools = [...all];
  const names = tools.map((tool) => tool.name);
  const descriptions = tools.map((tool) => tool.description);
  const texts = tools.map((tool) => toolText(tool.name, tool.description ?? ''));
  const parts = ['loopctl/corpus/v2', embedder.id, String(embedder.dimensions), String(tools.length)];
  for (let i = 0; i < tools.length; i++) parts.push(String(names[i]), texts[i] as string);
  // Loaded with the first corpus: a page that never embeds never loads the digest.
  const { bytes: keyDigest, hex } = await (await import('../digest.js')).digest(parts);
  // The embedder's short id only groups a store's entries by model; it need not resist choice.
  const idHash = new Hash64().update(embedder.id).digest().slice(0, 8);
  const key = `corpus:v2:${idHash}:${tools.length}x${embedder.dimensions}:${hex}`;
  return { key, keyDigest, tools, names, descriptions, texts };
}

// The same names and descriptions in the same order (other schema objects may carry them).
function sameContent(fingerprint: Fingerprint, all: readonly ToolSchema[]): boolean {
  const { names, descriptions } = fingerprint;
  return (
    names.length === all.length &&
    all.every((tool, i) => tool.name === names[i] && tool.description === descriptions[i])
  );
}

// Same schema objects in the same order, and none edited in place since.
function sameList(fingerprint: Fingerprint, all: readonly ToolSchema[]): boolean {
  const { tools, names, descriptions } = fingerprint;
  if (tools.length !== all.length) return false;
  for (let i = 0; i < all.length; i++) {
    const tool = all[i];
    if (tool !== tools[i] || tool === undefined || tool.name !== names[i] || tool.description !== descriptions[i]) {
      return false;
    }
  }
  return true;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

export { CorpusError };
