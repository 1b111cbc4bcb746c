/**
 * Learned traffic on Workers, one Durable Object per tenant: the platform's single writer with
 * strongly consistent storage, so every isolate of the fleet (and the next cold start) sees
 * what any of them learned, and concurrent writers never lose an update. Workers KV cannot
 * hold it (eventually consistent, one write per second per key).
 *
 * Bind it as `LEARNED_TRAFFIC` (wrangler.toml `[[durable_objects.bindings]]`, class
 * `LearnedTrafficObject`, exported by the worker's main module); with `PROXY_LEARN=on`,
 * `createWorker` then keeps the proxy's learning there.
 */
import type { DurableNamespaceLike } from '../tool-set-budget-object.js';
import type { LearnBounds, TenantState } from './tenant-state.js';
import { DEFAULT_LEARN_BOUNDS, emptyTenant, tenantFrom } from './tenant-state.js';
import type { LearnedTrafficStore } from './traffic-store.js';
import { stateStore } from './traffic-store.js';

/** The part of a Durable Object's storage the store uses. */
export interface TrafficStorageLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
}

const STATE_KEY = 'state';
const OBJECT_PREFIX = 'loopctl/learned-traffic/v1/';

/** One call to the object: the store method and its arguments. */
interface ObjectCall {
  readonly method: 'add' | 'snapshot' | 'list' | 'forget';
  readonly args: readonly unknown[];
  readonly bounds?: Partial<LearnBounds>;
}

/**
 * The Durable Object class: one per tenant, its state under one storage key. The bounds come
 * with each call, so a new deployment's bounds apply at once.
 *
 * @example
 * // worker entry
 * export { LearnedTrafficObject } from 'loopctl/hono'
 */
export class LearnedTrafficObject {
  readonly #storage: TrafficStorageLike;

  constructor(state: { storage: TrafficStorageLike }) {
    this.#storage = state.storage;
  }

  /** `POST` `{ method, args, bounds }` → `{ value }`. */
  async fetch(request: Request): Promise<Response> {
    let call: ObjectCall;
    try {
      call = (await request.json()) as ObjectCall;
    } catch {
      return Response.json({ error: 'a JSON body is required' }, { status: 400 });
    }
    const storage = this.#storage;
    // One object, one tenant. workerd's input gate holds other calls while this one awaits its
    // storage, so each read-modify-write below is atomic without a lock of our own.
    const store = stateStore(
      {
        read: async (): Promise<TenantState> => tenantFrom((await storage.get(STATE_KEY)) ?? emptyTenant()),
        write: (_tenant, state) => storage.put(STATE_KEY, state),
      },
      { ...DEFAULT_LEARN_BOUNDS, ...call.bounds },
    );
    const [tenant, registry, examples] = call.args as [string, string, never];
    switch (call.method) {
      case 'add':
        return Response.json({ value: await store.add(tenant, registry, examples) });
      case 'snapshot':
        return Response.json({ value: await store.snapshot(tenant, registry) });
      case 'list':
        return Response.json({ value: await store.list(tenant) });
      case 'forget':
        return Response.json({ value: await store.forget(tenant) });
      default:
        return Response.json({ error: `no method "${String(call.method)}"` }, { status: 400 });
    }
  }
}

/**
 * A {@link LearnedTrafficStore} kept by one {@link LearnedTrafficObject} per tenant behind
 * `namespace`. A call that fails rejects (the proxy fails open and says why).
 *
 * @example
 * createApp({ registry, proxy: { learn: durableTrafficStore(env.LEARNED_TRAFFIC) } })
 */
export function durableTrafficStore(
  namespace: DurableNamespaceLike,
  bounds: Partial<LearnBounds> = {},
): LearnedTrafficStore {
  const call = async (method: ObjectCall['method'], args: readonly unknown[]): Promise<never> => {
    const tenant = args[0] as string;
    const stub = namespace.get(namespace.idFromName(`${OBJECT_PREFIX}${tenant}`) as never);
    const response = await stub.fetch('https://learned-traffic.invalid/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method, args, bounds }),
    });
    const answer = (await response.json()) as { value?: unknown; error?: string };
    if (!response.ok) throw new Error(`learned traffic store: ${answer.error ?? `HTTP ${response.status}`}`);
    return answer.value as never;
  };
  return {
    add: (...args) => call('add', args),
    snapshot: (...args) => call('snapshot', args),
    list: (...args) => call('list', args),
    forget: (...args) => call('forget', args),
  };
}
