/**
 * What a selector has learned from the registry's own traffic: earlier prompts (as unit
 * vectors) and the tools they used. A new prompt asks its nearest earlier prompts, and those
 * close enough vote for their tools. Votes are bounded extra evidence on top of the ranking,
 * and only near neighbours vote, so a handful of examples cannot drag an unrelated query.
 */

import { mergeOptions } from '../options.js';
import { topK } from '../rank/top-k.js';
import type { StoredExample } from './example-codec.js';
import type { ProjectionOptions } from './query-projection.js';
import type { PairOptions, PairTable } from './tool-pairs.js';
import { pairTable } from './tool-pairs.js';
import { type UsageOptions, type UsagePrototypes, usageLifts, usagePrototypes } from './usage-prototypes.js';
import { neighbourFloor } from './vote-floor.js';

/** One example to learn from: a prompt and the tool names that served it. */
export interface LearnExample {
  readonly query: string;
  readonly tools: readonly string[];
}

/** How learned examples vote. Defaults were chosen on the dev splits (docs/tuning.md). */
export interface LearnedVoteOptions {
  /** Nearest earlier prompts that may vote. Default 8. */
  neighbours?: number;
  /** Cosine below which an earlier prompt does not vote at all. */
  minSimilarity?: number;
  /** Weight of the vote against the ranking's own 0..1 scores. */
  weight?: number;
  /**
   * Voters that must agree on a tool before it gets a vote: how many of the near prompts used
   * it. One near prompt is weak evidence with a sentence embedder (prompts to one assistant sit
   * at cosine 0.5–0.7 whatever they ask), and a lone neighbour's tools can push a tool no
   * example used out of the picks; two that agree rarely do. Default 2; 1 lets any voter vote.
   */
  agreement?: number;
  /** Examples kept (oldest go first). Default 8192. */
  maxExamples?: number;
  /**
   * Weight of each tool's prototype vote: the cosine between the prompt and the mean of the
   * prompts that used the tool, counted from `prototypeFloor` up. 0 turns it off.
   */
  prototypeWeight?: number;
  /** Cosine to a tool's prototype below which it gets no prototype vote. */
  prototypeFloor?: number;
  /**
   * What the votes learned may not evict from a selection a tool no example used (see the
   * hybrid's `keepUnseen`; a learned pair's partner keeps its slot): learning cannot hurt the
   * tools it has not seen. `true` always; a number `q`
   * only for a prompt unlike any example: its nearest example no closer than the `q` quantile
   * of how close examples of other tools sit together (see `neighbourFloor`).
   */
  protectUnseen?: boolean | number;
  /** Tools used together ({@link PairOptions}): a selected tool lifts its learned partners. `false` turns it off. */
  pairs?: PairOptions | false;
  /**
   * Cosine to the nearest example below which a prompt is unlike every example: no learned
   * stage (votes, usage prototypes, pairs, the query projection) touches its ranking. Default 0.3.
   */
  nearSimilarity?: number;
  /**
   * Usage prototypes ({@link UsageOptions}): each used tool lifted by how close the prompt sits
   * to the prompts that used it, centred on all learned prompts. `false` turns them off.
   */
  usage?: UsageOptions | false;
  /**
   * The learned query projection ({@link ProjectionOptions}): a linear map of the query vector
   * fitted on the examples, applied to the dense half when a held-out check on the examples
   * says it helps. `false` turns it off.
   */
  projection?: ProjectionOptions | false;
}

/** The fitted defaults (dev splits only). */
export const LEARN_DEFAULTS = {
  neighbours: 8,
  minSimilarity: 0.5,
  weight: 1.5,
  agreement: 2,
  maxExamples: 8192,
  prototypeWeight: 0,
  prototypeFloor: 0.5,
  protectUnseen: 0.75 as boolean | number,
  pairs: {} as PairOptions | false,
  nearSimilarity: 0.3,
  usage: {} as UsageOptions | false,
} as const;

/** Longest prompt kept, in characters; a longer one is cut (the embedder sees the head anyway). */
export const MAX_EXAMPLE_CHARS = 2000;

interface Entry {
  readonly query: string;
  readonly vector: Float32Array;
  readonly tools: Set<string>;
}

/**
 * An in-memory, insertion-ordered example store with nearest-prompt voting. Plain arrays and
 * loops: runs in a browser, a Worker or Node alike.
 *
 * @example
 * const memory = new ExampleMemory(512)
 * memory.add({ query: 'weather in Oslo', tools: ['get_weather'], vector })
 * memory.votes(queryVector, ['get_weather', 'send_email']) // Float64Array [0.8, 0]
 */
export class ExampleMemory {
  readonly dimensions: number;
  readonly #options: Required<Omit<LearnedVoteOptions, 'projection'>>;
  readonly #entries = new Map<string, Entry>();
  #matrix: Float32Array | undefined;
  #order: Entry[] = [];
  #prototypes: Map<string, Float32Array> | undefined;
  #version = 0;
  #pairs: { version: number; table: PairTable } | undefined;
  #used: { version: number; tools: ReadonlySet<string> } | undefined;
  #likeFloor: { version: number; value: number } | undefined;
  #usage: { version: number; prototypes: UsagePrototypes } | undefined;
  // The last query asked about (one ranking asks several times about the same vector).
  #near: { query: Float32Array; version: number; sims: Float64Array } | undefined;

  constructor(dimensions: number, options: LearnedVoteOptions = {}) {
    this.dimensions = dimensions;
    const { projection, ...votes } = options;
    this.#options = mergeOptions(LEARN_DEFAULTS, votes);
  }

  /** The voting settings in force. */
  get options(): Readonly<Required<Omit<LearnedVoteOptions, 'projection'>>> {
    return this.#options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Grows on every change to the examples (a derived fit compares it to know it is stale). */
  get version(): number {
    return this.#version;
  }

  /** The key an example is deduplicated under: the prompt, case and spacing folded. */
  static keyOf(query: string): string {
    return query.trim().replace(/\s+/g, ' ').toLowerCase();
  }

  /** Whether the prompt is known with all of these tools already. */
  covers(query: string, tools: readonly string[]): boolean {
    const entry = this.#entries.get(ExampleMemory.keyOf(query));
    return entry !== undefined && tools.every((tool) => entry.tools.has(tool));
  }

  /** The stored vector for a prompt, if it is known. */
  vectorOf(query: string): Float32Array | undefined {
    return this.#entries.get(ExampleMemory.keyOf(query))?.vector;
  }

  /**
   * Add one example. The same prompt again adds its tools to the ones it had (a run's turns
   * each record theirs). Returns `'new'`, `'updated'` or `'duplicate'`.
   */
  add(example: StoredExample): 'new' | 'updated' | 'duplicate' {
    if (example.vector.length !== this.dimensions)
      throw new RangeError(`example vector has ${example.vector.length} dimensions, expected ${this.dimensions}`);
    const key = ExampleMemory.keyOf(example.query);
    const entry = this.#entries.get(key);
    if (entry) {
      const before = entry.tools.size;
      for (const tool of example.tools) entry.tools.add(tool);
      if (entry.tools.size === before) return 'duplicate';
      this.#prototypes = undefined;
      this.#version++;
      return 'updated';
    }
    this.#entries.set(key, { query: example.query, vector: example.vector, tools: new Set(example.tools) });
    while (this.#entries.size > this.#options.maxExamples) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    this.#matrix = undefined;
    this.#prototypes = undefined;
    this.#version++;
    return 'new';
  }

  /**
   * Keep only tools in `names`: a removed tool's votes go, and an example left with no tool
   * goes. Returns how many examples were dropped.
   */
  retain(names: ReadonlySet<string>): { dropped: number; changed: boolean } {
    let dropped = 0;
    let changed = false;
    for (const [key, entry] of this.#entries) {
      for (const tool of entry.tools) {
        if (!names.has(tool)) {
          entry.tools.delete(tool);
          changed = true;
        }
      }
      if (entry.tools.size === 0) {
        this.#entries.delete(key);
        dropped++;
      }
    }
    if (dropped > 0) this.#matrix = undefined;
    if (changed) this.#prototypes = undefined;
    if (changed || dropped > 0) this.#version++;
    return { dropped, changed };
  }

  clear(): void {
    this.#version++;
    this.#entries.clear();
    this.#matrix = undefined;
    this.#prototypes = undefined;
    this.#order = [];
  }

  /** Every example, oldest first (for storage). */
  examples(): StoredExample[] {
    return [...this.#entries.values()].map(({ query, vector, tools }) => ({ query, vector, tools: [...tools] }));
  }

  /** Every example with the key it is stored under ({@link ExampleMemory.keyOf} its prompt), oldest first. */
  keyedExamples(): { key: string; vector: Float32Array; tools: string[] }[] {
    return [...this.#entries].map(([key, { vector, tools }]) => ({ key, vector, tools: [...tools] }));
  }

  /**
   * Each tool's vote for a unit query vector, aligned with `names` (0 where no near earlier
   * prompt used it), already scaled by the vote weight: add it to a 0..1 ranking score.
   * Undefined when nothing votes. Synchronous, so a `learn` finishing meanwhile cannot
   * change the examples halfway through one ranking.
   */
  votes(query: Float32Array, names: readonly string[]): Float64Array | undefined {
    const size = this.#entries.size;
    if (size === 0 || query.length !== this.dimensions) return undefined;
    const neighbourVotes = this.#neighbourVotes(query, names);
    const prototypeVotes = this.#options.prototypeWeight > 0 ? this.#prototypeVotes(query, names) : undefined;
    if (!prototypeVotes) return neighbourVotes;
    if (!neighbourVotes) return prototypeVotes;
    for (let i = 0; i < names.length; i++)
      neighbourVotes[i] = (neighbourVotes[i] as number) + (prototypeVotes[i] as number);
    return neighbourVotes;
  }

  // Each tool's prototype (the normalised mean of its prompts) votes by its cosine to the prompt.
  #prototypeVotes(query: Float32Array, names: readonly string[]): Float64Array | undefined {
    const prototypes = this.#ensurePrototypes();
    const { prototypeWeight, prototypeFloor } = this.#options;
    const out = new Float64Array(names.length);
    let any = false;
    for (let i = 0; i < names.length; i++) {
      const prototype = prototypes.get(names[i] as string);
      if (!prototype) continue;
      let sum = 0;
      for (let j = 0; j < this.dimensions; j++) sum += (prototype[j] as number) * (query[j] as number);
      if (sum > prototypeFloor) {
        out[i] = (prototypeWeight * (sum - prototypeFloor)) / (1 - prototypeFloor || 1);
        any = true;
      }
    }
    return any ? out : undefined;
  }

  #ensurePrototypes(): Map<string, Float32Array> {
    if (this.#prototypes) return this.#prototypes;
    const sums = new Map<string, Float32Array>();
    for (const entry of this.#entries.values()) {
      for (const tool of entry.tools) {
        let sum = sums.get(tool);
        if (!sum) {
          sum = new Float32Array(this.dimensions);
          sums.set(tool, sum);
        }
        for (let j = 0; j < this.dimensions; j++) sum[j] = (sum[j] as number) + (entry.vector[j] as number);
      }
    }
    for (const sum of sums.values()) {
      let norm = 0;
      for (const value of sum) norm += value * value;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let j = 0; j < sum.length; j++) sum[j] = (sum[j] as number) * scale;
    }
    this.#prototypes = sums;
    return sums;
  }

  #neighbourVotes(query: Float32Array, names: readonly string[]): Float64Array | undefined {
    const size = this.#entries.size;
    const { order } = this.#ensureMatrix();
    const { neighbours, minSimilarity, weight, agreement } = this.#options;
    // The nearest `neighbours` prompts at or above the floor, best first.
    const all = this.#similarities(query);
    const sims = new Float64Array(size);
    for (let row = 0; row < size; row++) {
      const sum = all[row] as number;
      sims[row] = sum >= minSimilarity ? sum : Number.NaN; // below the floor never ranks
    }
    const best = topK(sims, neighbours);
    if (best.length === 0) return undefined;
    const bestSims = best.map((row) => sims[row] as number);

    // A neighbour's say grows from 0 at the floor to 1 for the same prompt; each tool gets the
    // weighted share of the voters that used it, scaled by how close the nearest one is.
    const position = new Map<string, number>();
    names.forEach((name, i) => {
      position.set(name, i);
    });
    const out = new Float64Array(names.length);
    const voters = new Uint16Array(names.length);
    let total = 0;
    let strongest = 0;
    for (let n = 0; n < best.length; n++) {
      const say = ((bestSims[n] as number) - minSimilarity) / (1 - minSimilarity || 1);
      total += say;
      if (say > strongest) strongest = say;
      const entry = order[best[n] as number] as Entry;
      for (const tool of entry.tools) {
        const i = position.get(tool);
        if (i === undefined) continue;
        out[i] = (out[i] as number) + say;
        voters[i] = (voters[i] as number) + 1;
      }
    }
    if (!(total > 0)) return undefined;
    const scale = (weight * strongest) / total;
    // A tool fewer voters agree on than `agreement` gets nothing (its share still counts in the
    // total, so agreeing voters are not scaled up by a dissenting one's silence).
    let any = false;
    for (let i = 0; i < out.length; i++) {
      out[i] = (voters[i] as number) >= agreement ? (out[i] as number) * scale : 0;
      if ((out[i] as number) > 0) any = true;
    }
    return any ? out : undefined;
  }

  /**
   * Whether some example is at least `nearSimilarity` close to a unit query vector. Every learned stage (votes, usage prototypes, pairs, the query projection) acts
   * only on such a prompt, so a prompt unlike every example ranks exactly as without learning.
   */
  near(query: Float32Array): boolean {
    if (this.#entries.size === 0 || query.length !== this.dimensions) return false;
    const floor = this.#options.nearSimilarity;
    const sims = this.#similarities(query);
    for (let row = 0; row < sims.length; row++) if ((sims[row] as number) >= floor) return true;
    return false;
  }

  // The query's cosine to every example (in `#order`), computed once per query vector and state
  // of the examples: one ranking asks for it several times (the projection's gate, the stages'
  // gate, the votes), and it is the learned ranking's one pass over every example.
  #similarities(query: Float32Array): Float64Array {
    const cached = this.#near;
    if (cached?.query === query && cached.version === this.#version) return cached.sims;
    const { matrix, order } = this.#ensureMatrix();
    const sims = new Float64Array(order.length);
    for (let row = 0, offset = 0; row < order.length; row++, offset += this.dimensions) {
      let sum = 0;
      for (let j = 0; j < this.dimensions; j++) sum += (matrix[offset + j] as number) * (query[j] as number);
      sims[row] = sum;
    }
    this.#near = { query, version: this.#version, sims };
    return sims;
  }

  /**
   * Each used tool's lift from its usage prototype for a unit query vector, aligned with
   * `names` (see `usageLifts`); undefined when usage is off, the prompt is not {@link near} an
   * example, or no prototype is close. Prototypes are rebuilt when the examples change.
   */
  usage(query: Float32Array, names: readonly string[]): Float64Array | undefined {
    const options = this.#options.usage;
    if (options === false || !this.near(query)) return undefined;
    if (this.#usage?.version !== this.#version) {
      this.#usage = {
        version: this.#version,
        prototypes: usagePrototypes([...this.#entries.values()], this.dimensions),
      };
    }
    return usageLifts(this.#usage.prototypes, query, names, options);
  }

  /** Whether a prompt is unlike every example, for `protectUnseen` (see there). */
  unlike(query: Float32Array): boolean {
    const q = this.#options.protectUnseen;
    if (q === true) return true;
    if (q === false || this.#entries.size === 0 || query.length !== this.dimensions) return false;
    const { matrix, order } = this.#ensureMatrix();
    if (this.#likeFloor?.version !== this.#version) {
      const measured = neighbourFloor(
        matrix,
        order.map((entry) => entry.tools),
        this.dimensions,
        q,
      );
      // Too few examples of different tools to measure: no guard (only near neighbours vote anyway).
      this.#likeFloor = { version: this.#version, value: measured ?? this.#options.minSimilarity };
    }
    let nearest = -1;
    for (let row = 0, offset = 0; row < order.length; row++, offset += this.dimensions) {
      let sum = 0;
      for (let j = 0; j < this.dimensions; j++) sum += (matrix[offset + j] as number) * (query[j] as number);
      if (sum > nearest) nearest = sum;
    }
    return nearest < this.#likeFloor.value;
  }

  /** Every tool some example used. Recomputed when the examples change. */
  get usedTools(): ReadonlySet<string> {
    if (this.#used?.version !== this.#version) {
      const tools = new Set<string>();
      for (const entry of this.#entries.values()) for (const tool of entry.tools) tools.add(tool);
      this.#used = { version: this.#version, tools };
    }
    return this.#used.tools;
  }

  /**
   * Tools the examples used together, with each pair's confidence (see `pairTable`); empty
   * when pairs are off. Recomputed when the examples change.
   */
  get pairs(): PairTable {
    const options = this.#options.pairs;
    if (options === false) return new Map();
    if (this.#pairs?.version !== this.#version) {
      this.#pairs = {
        version: this.#version,
        table: pairTable(
          [...this.#entries.values()].map((entry) => entry.tools),
          options,
        ),
      };
    }
    return this.#pairs.table;
  }

  #ensureMatrix(): { matrix: Float32Array; order: Entry[] } {
    if (!this.#matrix || this.#order.length !== this.#entries.size) {
      this.#order = [...this.#entries.values()];
      const matrix = new Float32Array(this.#order.length * this.dimensions);
      this.#order.forEach((entry, row) => {
        matrix.set(entry.vector, row * this.dimensions);
      });
      this.#matrix = matrix;
    }
    return { matrix: this.#matrix, order: this.#order };
  }
}
