/**
 * The proxy's learning, as one proxy configuration holds it: the store, the key tenant ids are
 * digested with, a short-lived per-isolate cache of snapshots (so a request reads the store at
 * most once a few seconds per tenant and registry, and never longer than a timeout), and the
 * learned copies of the selectors.
 */
import type { LearnedSelectors } from './learned-selectors.js';
import { learnedSelectors } from './learned-selectors.js';
import type { LearnedTrafficStore, TrafficSnapshot } from './traffic-store.js';

/** Options of the proxy's learning (`ProxySettings.learn*`). */
export interface ProxyLearningOptions {
  /** The key of the tenant digest (`PROXY_LEARN_SECRET`); default none (the digest still hides the key). */
  readonly secret?: string;
  /** How long an isolate reuses a snapshot, ms. Default 2000. */
  readonly snapshotTtlMs?: number;
  /** How long a request waits for the store, ms; past it the request is ranked unlearned. Default 250. */
  readonly readTimeoutMs?: number;
  readonly onError?: (error: unknown) => void;
}

/** One proxy's learning state. */
export interface ProxyLearning {
  readonly store: LearnedTrafficStore;
  readonly secret: string;
  readonly selectors: LearnedSelectors;
  /** The tenant's snapshot of a registry: cached briefly, rejecting past the timeout. */
  snapshot(tenant: string, registry: string): Promise<TrafficSnapshot>;
  /** Drop a cached snapshot (after this isolate wrote to it). */
  invalidate(tenant: string, registry: string): void;
  readonly onError: ((error: unknown) => void) | undefined;
}

/** Snapshots one isolate keeps: a bound on memory with many tenants. */
const MAX_SNAPSHOTS = 1024;

/**
 * The learning state of one proxy over `store`.
 *
 * @example
 * const learning = proxyLearning(memoryTrafficStore(), { secret: env.PROXY_LEARN_SECRET })
 */
export function proxyLearning(store: LearnedTrafficStore, options: ProxyLearningOptions = {}): ProxyLearning {
  const ttl = options.snapshotTtlMs ?? 2000;
  const timeout = options.readTimeoutMs ?? 250;
  const cache = new Map<string, { at: number; value: Promise<TrafficSnapshot> }>();
  return {
    store,
    secret: options.secret ?? '',
    selectors: learnedSelectors(options.onError),
    onError: options.onError,
    snapshot(tenant, registry) {
      const key = `${tenant}/${registry}`;
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && now - hit.at < ttl) return hit.value;
      if (cache.size >= MAX_SNAPSHOTS) cache.delete(cache.keys().next().value as string);
      const value = withTimeout(store.snapshot(tenant, registry), timeout);
      // A failed read is not cached: the next request tries again.
      value.catch(() => cache.delete(key));
      cache.set(key, { at: now, value });
      return value;
    },
    invalidate: (tenant, registry) => {
      cache.delete(`${tenant}/${registry}`);
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the learned traffic store took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
