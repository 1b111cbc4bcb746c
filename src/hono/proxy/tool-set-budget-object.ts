/**
 * The tool-set budget of a Workers deployment, in one Durable Object: every isolate of the
 * fleet takes from the same ledger, so a client spreading requests over isolates (or a fresh
 * isolate after a cold start) gets no more than the budget. Workers KV cannot hold a counter
 * (eventually consistent, one write per second per key); a Durable Object is the platform's
 * single writer with strongly consistent storage.
 *
 * Bind it as `TOOL_SET_BUDGET` (wrangler.toml `[[durable_objects.bindings]]`, class
 * `ToolSetBudgetObject`, exported by the worker's main module); `createWorker` then uses it
 * instead of a per-isolate budget.
 */

import { errorMessage } from '../../describe-error.js';
import type { LedgerStore, ToolSetBudget, ToolSetBudgetLimits, ToolSetBudgetOptions } from './tool-set-budget.js';
import { budgetLimits, ledgerBudget } from './tool-set-budget.js';

/** The part of a Durable Object's storage the ledger uses: its `get`, `put` and `deleteAll` (structural). */
export type DurableStorageLike = LedgerStore;

/** The part of a `DurableObjectNamespace` binding the budget uses. */
export interface DurableNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** The one object every isolate talks to. */
const OBJECT_NAME = 'loopctl/tool-set-budget/v1';

/**
 * The Durable Object class. Its ledger follows the limits each request carries, so a new
 * deployment's limits apply at once.
 *
 * @example
 * // worker entry
 * export { ToolSetBudgetObject } from 'loopctl/hono'
 */
export class ToolSetBudgetObject {
  readonly #store: LedgerStore;
  #budget: { limits: string; budget: ToolSetBudget } | undefined;

  constructor(state: { storage: DurableStorageLike }) {
    this.#store = state.storage;
  }

  /** `POST` `{ client, limits }` → `{ refused: string | null }`. */
  async fetch(request: Request): Promise<Response> {
    let body: { client?: unknown; limits?: ToolSetBudgetOptions };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return Response.json({ error: 'a JSON body is required' }, { status: 400 });
    }
    if (typeof body.client !== 'string' || body.client.length > 200)
      return Response.json({ error: '"client" must be a string' }, { status: 400 });
    let limits: ToolSetBudgetLimits;
    try {
      limits = budgetLimits(body.limits ?? {});
    } catch (error) {
      return Response.json({ error: errorMessage(error) }, { status: 400 });
    }
    const key = JSON.stringify(limits);
    if (this.#budget?.limits !== key) this.#budget = { limits: key, budget: ledgerBudget(this.#store, limits) };
    const refused = await this.#budget.budget.take(body.client);
    return Response.json({ refused: refused ?? null });
  }
}

/**
 * A budget kept by the {@link ToolSetBudgetObject} behind `namespace`. When the object cannot
 * be reached, the request is ranked lexically (nothing embedded, nothing written) and told why.
 *
 * @example
 * createApp({ registry, proxy: { toolSetBudget: durableToolSetBudget(env.TOOL_SET_BUDGET) } })
 */
export function durableToolSetBudget(
  namespace: DurableNamespaceLike,
  options: ToolSetBudgetOptions = {},
): ToolSetBudget {
  const limits = budgetLimits(options);
  return {
    async take(client) {
      try {
        const stub = namespace.get(namespace.idFromName(OBJECT_NAME) as never);
        const response = await stub.fetch('https://tool-set-budget.invalid/take', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client, limits }),
        });
        const answer = (await response.json()) as { refused?: string | null; error?: string };
        if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
        return answer.refused ?? undefined;
      } catch (error) {
        return `the shared budget of new tool lists could not be reached (${errorMessage(error)})`;
      }
    },
  };
}
