/**
 * What the proxy has learned for one tenant, as plain JSON, and the one function that adds to it
 * within its bounds. Every store (memory, file, Durable Object) keeps this same value and calls
 * {@link addExamples}, so the bounds and the idempotency rule are written once.
 */
import type { TrafficExample } from './traffic-examples.js';

/** One stored example: its key, prompt and tools, and when it was last written (ms). */
export interface StoredExample {
  readonly key: string;
  readonly query: string;
  readonly tools: readonly string[];
  readonly at: number;
}

/** One tenant's learned state: examples per registry, a version that moves on every change. */
export interface TenantState {
  version: number;
  registries: Record<string, StoredExample[]>;
  /** Write times (ms) within the last minute, for the write rate. */
  writes: number[];
}

/** The bounds of a tenant's learning. */
export interface LearnBounds {
  /** Examples kept per tenant per registry; the oldest go. Default 2048 (`PROXY_LEARN_MAX_EXAMPLES`). */
  readonly maxExamples: number;
  /** Bytes (JSON) kept per tenant; the oldest examples of any registry go. Default 1 MiB (`PROXY_LEARN_MAX_BYTES`). */
  readonly maxBytes: number;
  /** Writes (requests that changed something) per tenant per minute; more are dropped. Default 60 (`PROXY_LEARN_WRITES_PER_MINUTE`). */
  readonly writesPerMinute: number;
}

/**
 * The default bounds (declared as the `PROXY_LEARN_*` settings' defaults).
 *
 * @example
 * addExamples(state, registry, examples, { ...DEFAULT_LEARN_BOUNDS, maxExamples: 100 }, Date.now())
 */
export const DEFAULT_LEARN_BOUNDS: LearnBounds = { maxExamples: 2048, maxBytes: 1 << 20, writesPerMinute: 60 };

/**
 * A tenant with nothing learned.
 *
 * @example
 * emptyTenant() // { version: 0, registries: {}, writes: [] }
 */
export function emptyTenant(): TenantState {
  return { version: 0, registries: {}, writes: [] };
}

/** What one add did. */
export interface AddOutcome {
  /** Examples new or changed. */
  readonly written: number;
  /** Set when the write rate was spent and nothing was written. */
  readonly refused?: string;
}

/**
 * Add `examples` of `registry` to `state` (in place). An example whose key is stored with the
 * same tools changes nothing; with other tools (the conversation went on) it is replaced, not
 * added. Then the bounds: examples per registry, bytes per tenant (oldest first), and a write
 * only when the minute's writes are not spent.
 *
 * @example
 * const state = emptyTenant()
 * addExamples(state, 'r1', [{ key: 'k', query: 'weather', tools: ['get_weather'] }], DEFAULT_LEARN_BOUNDS, Date.now())
 * state.registries.r1?.length // 1
 */
export function addExamples(
  state: TenantState,
  registry: string,
  examples: readonly TrafficExample[],
  bounds: LearnBounds,
  now: number,
): AddOutcome {
  const list = state.registries[registry] ?? [];
  const byKey = new Map(list.map((example, index) => [example.key, index]));
  const changes = examples.filter((example) => {
    const at = byKey.get(example.key);
    return at === undefined || !sameTools(list[at]?.tools ?? [], example.tools);
  });
  if (changes.length === 0) return { written: 0 };
  state.writes = state.writes.filter((at) => now - at < 60_000);
  if (state.writes.length >= bounds.writesPerMinute)
    return { written: 0, refused: `this tenant's ${bounds.writesPerMinute} learning writes a minute are spent` };
  state.writes.push(now);
  const replaced = new Set(changes.map((example) => example.key));
  const kept = list.filter((example) => !replaced.has(example.key));
  for (const { key, query, tools } of changes) kept.push({ key, query, tools: [...tools], at: now });
  state.registries[registry] = kept.slice(Math.max(0, kept.length - bounds.maxExamples));
  trimBytes(state, bounds.maxBytes);
  state.version++;
  return { written: changes.length };
}

/**
 * The JSON size of a tenant's examples, in bytes (UTF-16 code units, a close upper bound for
 * ASCII-heavy prompts and cheap to count).
 *
 * @example
 * tenantBytes(emptyTenant()) // 0
 */
export function tenantBytes(state: TenantState): number {
  let bytes = 0;
  for (const list of Object.values(state.registries)) for (const example of list) bytes += exampleBytes(example);
  return bytes;
}

function exampleBytes(example: StoredExample): number {
  return JSON.stringify(example).length + 1;
}

// Oldest example of any registry first, until the tenant fits.
function trimBytes(state: TenantState, maxBytes: number): void {
  let bytes = tenantBytes(state);
  while (bytes > maxBytes) {
    let oldest: { registry: string; at: number } | undefined;
    for (const [registry, list] of Object.entries(state.registries)) {
      const first = list[0];
      if (first && (oldest === undefined || first.at < oldest.at)) oldest = { registry, at: first.at };
    }
    if (!oldest) return;
    const list = state.registries[oldest.registry] as StoredExample[];
    const gone = list.shift() as StoredExample;
    bytes -= exampleBytes(gone);
    if (list.length === 0) delete state.registries[oldest.registry];
  }
}

function sameTools(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

/**
 * A stored state read back, checked: anything malformed is a fresh tenant (learning fails
 * open, never a request).
 *
 * @example
 * tenantFrom(JSON.parse(text))
 */
export function tenantFrom(value: unknown): TenantState {
  if (typeof value !== 'object' || value === null) return emptyTenant();
  const { version, registries, writes } = value as Partial<TenantState>;
  if (typeof version !== 'number' || typeof registries !== 'object' || registries === null) return emptyTenant();
  return { version, registries, writes: Array.isArray(writes) ? writes.filter((at) => typeof at === 'number') : [] };
}
