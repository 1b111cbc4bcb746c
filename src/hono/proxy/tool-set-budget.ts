/**
 * How many new tool lists the proxy embeds, per client and in all, per window. A tool list the
 * dense selectors have not seen costs embedding work (seconds for a big list) and one write to
 * the vector cache (Workers KV, files), and every distinct list is new: a client cycling through
 * made-up lists could otherwise spend the server's CPU and its store's writes without end. Over
 * budget, the proxy still narrows that request, lexically (BM25: no vectors, no write).
 *
 * One ledger, two homes: this process's memory ({@link toolSetBudget}: Node, Deno, one isolate),
 * or a Durable Object's storage shared by every isolate of a Workers deployment
 * (`tool-set-budget-object.ts`). The window is fixed: it restarts every `windowMs`, and its
 * counts go with it. A client's count is written only when a list is admitted, so a window
 * holds at most `total` client entries.
 */

import { mergeOptions } from '../../options.js';
import { settingDefaults } from '../setting.js';
import { PROXY_SETTINGS } from '../settings.js';

/** Bounds of a tool-set budget. */
export interface ToolSetBudgetOptions {
  /** New tool lists one client may bring per window (`PROXY_NEW_TOOL_SETS_PER_CLIENT`); default declared in `settings.ts`. */
  perClient?: number;
  /** New tool lists all clients together may bring per window (`PROXY_NEW_TOOL_SETS_TOTAL`); default declared in `settings.ts`. */
  total?: number;
  /** The window, in milliseconds. Default one hour. */
  windowMs?: number;
  /** The clock. Default `Date.now`. */
  now?: () => number;
}

/** Takes one new tool list from a client's budget. */
export interface ToolSetBudget {
  /** Undefined when the list may be embedded, else why not (told to the client in a header). */
  take(client: string): Promise<string | undefined>;
}

/** Where a ledger keeps its counts: a Map, or a Durable Object's storage. */
export interface LedgerStore {
  get(key: string): Promise<unknown>;
  put(entries: Record<string, unknown>): Promise<void>;
  deleteAll(): Promise<void>;
}

/** The budget's bounds, all set. */
export type ToolSetBudgetLimits = Required<Omit<ToolSetBudgetOptions, 'now'>>;

const DECLARED = settingDefaults(PROXY_SETTINGS);
const LIMITS: ToolSetBudgetLimits = {
  perClient: DECLARED.newToolSetsPerClient,
  total: DECLARED.newToolSetsTotal,
  windowMs: 3_600_000,
};

/**
 * The bounds with their defaults, checked.
 *
 * @example
 * budgetLimits({ perClient: 10 }) // { perClient: 10, total: 600, windowMs: 3600000 }
 */
export function budgetLimits(options: ToolSetBudgetOptions = {}): ToolSetBudgetLimits {
  const { perClient, total, windowMs } = mergeOptions(LIMITS, options);
  for (const [name, value] of Object.entries({ perClient, total, windowMs })) {
    if (!(Number.isInteger(value) && value >= 1))
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return { perClient, total, windowMs };
}

/**
 * A budget of new tool lists kept in `store`. Takes run one at a time, so two concurrent
 * requests never both spend the last unit.
 *
 * @example
 * const budget = ledgerBudget(memoryLedger(), budgetLimits())
 * await budget.take(clientId) // undefined, or why this list is ranked lexically
 */
export function ledgerBudget(store: LedgerStore, limits: ToolSetBudgetLimits, now = Date.now): ToolSetBudget {
  const { perClient, total, windowMs } = limits;
  const minutes = Math.round(windowMs / 60_000);
  const per = minutes === 60 ? 'an hour' : `${minutes} minutes`;
  let queue: Promise<unknown> = Promise.resolve();
  const take = async (client: string): Promise<string | undefined> => {
    const at = now();
    let window = (await store.get('window')) as { start: number; used: number } | undefined;
    if (window === undefined || !(at - window.start < windowMs) || at < window.start) {
      await store.deleteAll();
      window = { start: at, used: 0 };
    }
    const key = `client:${client}`;
    const mine = Number((await store.get(key)) ?? 0);
    if (mine >= perClient) return `this client's budget of ${perClient} new tool lists ${per} is spent`;
    if (window.used >= total) return `this server's budget of ${total} new tool lists ${per} is spent`;
    await store.put({ window: { start: window.start, used: window.used + 1 }, [key]: mine + 1 });
    return undefined;
  };
  return {
    take(client) {
      const result = queue.then(() => take(client));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

/**
 * A ledger store in this process's memory.
 *
 * @example
 * ledgerBudget(memoryLedger(), budgetLimits())
 */
export function memoryLedger(): LedgerStore {
  const entries = new Map<string, unknown>();
  return {
    async get(key) {
      return entries.get(key);
    },
    async put(values) {
      for (const [key, value] of Object.entries(values)) entries.set(key, value);
    },
    async deleteAll() {
      entries.clear();
    },
  };
}

/**
 * A per-client and total budget of new tool lists per window, in this process's memory.
 *
 * @example
 * const budget = toolSetBudget({ perClient: 60, total: 600 })
 * const refused = await budget.take(clientId) // undefined, or why this list is ranked lexically
 */
export function toolSetBudget(options: ToolSetBudgetOptions = {}): ToolSetBudget {
  return ledgerBudget(memoryLedger(), budgetLimits(options), options.now);
}
