/**
 * How many new tool lists the proxy embeds, per client and in all, per window. A tool list the
 * dense selectors have not seen costs embedding work (seconds for a big list) and one write to
 * the vector cache (Workers KV, files), and every distinct list is new: a client cycling through
 * made-up lists could otherwise spend the server's CPU and its store's writes without end. Over
 * budget, the proxy still narrows that request, lexically (BM25: no vectors, no write).
 *
 * The counts live in this isolate's memory, so the bound is per process (per isolate on
 * Workers); the window is fixed (it restarts every `windowMs`).
 */

import { lruSet } from '../../embed/lru.js';
import { mergeOptions } from '../../options.js';

/** Bounds of a {@link toolSetBudget}. */
export interface ToolSetBudgetOptions {
  /** New tool lists one client may bring per window (`PROXY_NEW_TOOL_SETS_PER_CLIENT`). Default 60. */
  perClient?: number;
  /** New tool lists all clients together may bring per window (`PROXY_NEW_TOOL_SETS_TOTAL`). Default 600. */
  total?: number;
  /** The window, in milliseconds. Default one hour. */
  windowMs?: number;
  /** Clients whose counts are kept (the least recent go first). Default 10000. */
  maxClients?: number;
  /** The clock. Default `Date.now`. */
  now?: () => number;
}

/** Takes one new tool list from a client's budget. */
export interface ToolSetBudget {
  /** Undefined when the list may be embedded, else why not (told to the client in a header). */
  take(client: string): string | undefined;
}

const DEFAULTS = { perClient: 60, total: 600, windowMs: 3_600_000, maxClients: 10_000, now: Date.now };

/**
 * A per-client and total budget of new tool lists per window.
 *
 * @example
 * const budget = toolSetBudget({ perClient: 60, total: 600 })
 * const refused = budget.take(clientId) // undefined, or why this list is ranked lexically
 */
export function toolSetBudget(options: ToolSetBudgetOptions = {}): ToolSetBudget {
  const { perClient, total, windowMs, maxClients, now } = mergeOptions(DEFAULTS, options);
  for (const [name, value] of Object.entries({ perClient, total, windowMs, maxClients })) {
    if (!(Number.isInteger(value) && value >= 1))
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  const minutes = Math.round(windowMs / 60_000);
  const per = minutes === 60 ? 'an hour' : `${minutes} minutes`;
  const clients = new Map<string, number>();
  let windowStart = now();
  let used = 0;
  return {
    take(client) {
      const at = now();
      if (at - windowStart >= windowMs) {
        windowStart = at;
        used = 0;
        clients.clear();
      }
      const mine = clients.get(client) ?? 0;
      if (mine >= perClient) return `this client's budget of ${perClient} new tool lists ${per} is spent`;
      if (used >= total) return `this server's budget of ${total} new tool lists ${per} is spent`;
      used++;
      lruSet(clients, client, mine + 1, maxClients);
      return undefined;
    },
  };
}
