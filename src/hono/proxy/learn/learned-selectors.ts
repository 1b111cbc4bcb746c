/**
 * The learned copies of the proxy's selectors, per isolate: for a (selector, tenant, registry),
 * a copy with its own learned examples (`extend` with a fresh learned cache, then `learn` the
 * tenant's examples). A copy is built in the background when the tenant's snapshot moves on; a
 * request never waits on it, and meanwhile gets the last copy built (or the unlearned selector).
 * A busy tenant's snapshot moves on with nearly every request, and each build is a fit on the
 * isolate's one thread, so a slot is rebuilt at most once per `minRebuildMs` (its first build
 * starts at once).
 */

import type { VectorCache } from '../../../embed/vector-cache.js';
import { memoryVectorCache } from '../../../embed/vector-cache.js';
import type { LearnExample } from '../../../learn/example-memory.js';
import type { ToolSchema } from '../../../registry/schema.js';
import type { AsyncToolSelector } from '../../../select/selector.js';
import type { TrafficSnapshot } from './traffic-store.js';

/** A selector that can learn: the dense ones (`EmbeddingSelector`, `HybridSelector`). */
interface Learnable extends AsyncToolSelector {
  extend(options: { learnedCache: VectorCache }): Learnable;
  learn(examples: readonly LearnExample[], options: { tools: readonly ToolSchema[] }): Promise<unknown>;
}

const isLearnable = (selector: AsyncToolSelector): selector is Learnable =>
  typeof (selector as Partial<Learnable>).extend === 'function' &&
  typeof (selector as Partial<Learnable>).learn === 'function';

interface Slot {
  /** The last copy built, and how many examples shaped it. */
  ready?: {
    readonly selector: AsyncToolSelector;
    readonly count: number;
    readonly version: number;
    /** When it was built (ms): the next build waits `minRebuildMs` after it. */
    readonly at: number;
  };
  /** The version being built. */
  building?: number;
  /** A version whose build failed: not retried until the snapshot moves on. */
  failed?: number;
}

/** Copies kept per selector: a bound on what one isolate holds for many tenants. */
const MAX_SLOTS = 256;

/**
 * The least time between two builds of one slot, ms. Without it, one tenant's 1,000 requests
 * (test/proxy/learn-isolation.test.ts's traffic: 500 conversations, 8 in flight, the file store)
 * caused 122 builds and took 14.2 s against 4.6 s with learning off (warm, one process);
 * with it, 5.9 s.
 */
const MIN_REBUILD_MS = 1000;

// The slot of (base, key), made on first use; a full table drops its oldest.
function slotOf(slots: WeakMap<AsyncToolSelector, Map<string, Slot>>, base: AsyncToolSelector, key: string): Slot {
  let bySlot = slots.get(base);
  if (!bySlot) {
    bySlot = new Map();
    slots.set(base, bySlot);
  }
  let slot = bySlot.get(key);
  if (!slot) {
    if (bySlot.size >= MAX_SLOTS) bySlot.delete(bySlot.keys().next().value as string);
    slot = {};
    bySlot.set(key, slot);
  }
  return slot;
}

/** The learned copies of one proxy's selectors. */
export interface LearnedSelectors {
  /**
   * The selector to rank with for this tenant's snapshot, and how many examples shaped it (0:
   * the unlearned one). Starts a build when the snapshot is newer than the last copy.
   */
  pick(
    base: AsyncToolSelector,
    slotKey: string,
    snapshot: TrafficSnapshot,
    tools: readonly ToolSchema[],
    keepAlive?: (work: Promise<unknown>) => void,
  ): { selector: AsyncToolSelector; learned: number };
  /** Resolves when no build is running (tests and benchmarks). */
  idle(): Promise<void>;
}

/**
 * A fresh cache of learned copies. `onError` hears a failed build (the selector stays unlearned);
 * a slot that has a copy is rebuilt at most once per `minRebuildMs` (default 1000).
 *
 * @example
 * const { selector, learned } = learnedSelectors().pick(base, `${tenant}/${registry}`, snapshot, tools)
 */
export function learnedSelectors(
  onError?: (error: unknown) => void,
  minRebuildMs: number = MIN_REBUILD_MS,
): LearnedSelectors {
  const slots = new WeakMap<AsyncToolSelector, Map<string, Slot>>();
  const builds = new Set<Promise<void>>();
  return {
    pick(base, slotKey, snapshot, tools, keepAlive) {
      if (snapshot.examples.length === 0 || !isLearnable(base)) return { selector: base, learned: 0 };
      const current = slotOf(slots, base, slotKey);
      if (
        (current.ready?.version ?? -1) < snapshot.version &&
        current.building === undefined &&
        current.failed !== snapshot.version &&
        (current.ready === undefined || Date.now() - current.ready.at >= minRebuildMs)
      ) {
        current.building = snapshot.version;
        const examples = snapshot.examples.map(({ query, tools: names }) => ({ query, tools: names }));
        const copy = base.extend({ learnedCache: memoryVectorCache() });
        const build = copy
          .learn(examples, { tools })
          .then(
            () => {
              current.ready = { selector: copy, count: examples.length, version: snapshot.version, at: Date.now() };
            },
            (error: unknown) => {
              current.failed = snapshot.version;
              onError?.(error);
            },
          )
          .finally(() => {
            current.building = undefined;
            builds.delete(build);
          });
        builds.add(build);
        // Workers stop a request's timers once it is answered: the build is kept alive with it.
        keepAlive?.(build);
      }
      return current.ready
        ? { selector: current.ready.selector, learned: current.ready.count }
        : { selector: base, learned: 0 };
    },
    async idle() {
      while (builds.size > 0) await Promise.all(builds);
    },
  };
}
