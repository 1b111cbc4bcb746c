/**
 * Where the proxy keeps what it learns from traffic, per tenant: the {@link LearnedTrafficStore}
 * interface every deployment implements (this process's memory here; a file per tenant on Node
 * and Deno, `file-traffic-store.ts`; a Durable Object per tenant on Workers,
 * `traffic-store-object.ts`), and the memory one.
 */
import type { AddOutcome, LearnBounds, StoredExample, TenantState } from './tenant-state.js';
import { addExamples, DEFAULT_LEARN_BOUNDS, emptyTenant } from './tenant-state.js';
import type { TrafficExample } from './traffic-examples.js';

/** What selection reads: one tenant's examples of one registry, and the tenant's version. */
export interface TrafficSnapshot {
  /** Moves whenever the tenant's examples change: a learned selector is rebuilt only then. */
  readonly version: number;
  readonly examples: readonly StoredExample[];
}

/**
 * A store of learned traffic. Tenants are opaque ids (keyed digests, never a key); a registry
 * is the digest of a tool list. Every method may reject: the proxy then fails open.
 *
 * @example
 * await store.add(tenant, registry, examples)
 * const { version, examples } = await store.snapshot(tenant, registry)
 */
export interface LearnedTrafficStore {
  /** Add examples idempotently (by key), within the bounds. */
  add(tenant: string, registry: string, examples: readonly TrafficExample[]): Promise<AddOutcome>;
  /** The tenant's examples of one registry. */
  snapshot(tenant: string, registry: string): Promise<TrafficSnapshot>;
  /** Every example of the tenant, by registry (the `GET /v1/learned` answer). */
  list(tenant: string): Promise<Readonly<Record<string, readonly StoredExample[]>>>;
  /** Forget the tenant's examples; resolves to how many there were. */
  forget(tenant: string): Promise<number>;
}

/**
 * The store's operations over a tenant state held somewhere (a map, a file, Durable Object
 * storage): `read` gets it, `write` puts it back after a change.
 */
export interface TenantStateIO {
  read(tenant: string): Promise<TenantState>;
  write(tenant: string, state: TenantState): Promise<void>;
}

/**
 * A {@link LearnedTrafficStore} over any {@link TenantStateIO}. Writes of one tenant are
 * serialized here, so a read-modify-write never loses another's update within one process.
 *
 * @example
 * const store = stateStore({ read: async () => emptyTenant(), write: async () => {} })
 */
export function stateStore(io: TenantStateIO, bounds: LearnBounds = DEFAULT_LEARN_BOUNDS): LearnedTrafficStore {
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(tenant: string, task: () => Promise<T>): Promise<T> => {
    const run = (queues.get(tenant) ?? Promise.resolve()).then(task, task);
    const settled = run.catch(() => undefined);
    queues.set(tenant, settled);
    void settled.then(() => {
      if (queues.get(tenant) === settled) queues.delete(tenant);
    });
    return run;
  };
  return {
    add: (tenant, registry, examples) =>
      serial(tenant, async () => {
        const state = await io.read(tenant);
        const outcome = addExamples(state, registry, examples, bounds, Date.now());
        if (outcome.written > 0) await io.write(tenant, state);
        return outcome;
      }),
    async snapshot(tenant, registry) {
      const state = await io.read(tenant);
      return { version: state.version, examples: state.registries[registry] ?? [] };
    },
    list: async (tenant) => (await io.read(tenant)).registries,
    forget: (tenant) =>
      serial(tenant, async () => {
        const state = await io.read(tenant);
        const count = Object.values(state.registries).reduce((sum, list) => sum + list.length, 0);
        // Emptied, not deleted: the version moves on, so no selector learned before is reused.
        await io.write(tenant, { ...emptyTenant(), version: state.version + 1 });
        return count;
      }),
  };
}

/**
 * Learned traffic in this process's memory (one isolate on Workers; lost on restart).
 *
 * @example
 * createApp({ registry, proxy: { learn: memoryTrafficStore() } })
 */
export function memoryTrafficStore(bounds: Partial<LearnBounds> = {}): LearnedTrafficStore {
  const tenants = new Map<string, TenantState>();
  return stateStore(
    {
      read: async (tenant) => structuredClone(tenants.get(tenant) ?? emptyTenant()),
      write: async (tenant, state) => {
        tenants.set(tenant, structuredClone(state));
      },
    },
    { ...DEFAULT_LEARN_BOUNDS, ...bounds },
  );
}
