/**
 * What a gateway session remembers between requests when no one process holds it: the tools
 * its searches found (`exposeFound`), keyed by the session id the gateway gave at `initialize`.
 * Everything else a request needs is in the request itself, so any process or isolate can serve
 * any request of a session as long as they share this store (a Durable Object on Workers:
 * `durableGatewaySessions` in `loopctl/hono`).
 */

/** Where sessions' found tools live. Each method may reject; the gateway then keeps the list fixed. */
export interface GatewaySessions {
  /** The session's found tools, in the order found; none for an id never seen (or forgotten). */
  found(session: string): Promise<readonly string[]>;
  /** Replace the session's found tools with `names` (the whole list, at most 64). */
  keep(session: string, names: readonly string[]): Promise<void>;
  /** The client ended the session (`DELETE`). */
  forget(session: string): Promise<void>;
}

/** The most found tools one session keeps (as `gatewayServer` lists at most). */
const MAX_NAMES = 64;

/**
 * Sessions in this process's memory, the least recently used dropped past `maxSessions`: for
 * one Node or Deno process. A fleet of isolates needs a shared store instead.
 *
 * @example
 * const sessions = memoryGatewaySessions(256)
 * await sessions.keep('a1b2', ['memory__create_entities'])
 * await sessions.found('a1b2') // ['memory__create_entities']
 */
export function memoryGatewaySessions(maxSessions = 256): GatewaySessions {
  const lists = new Map<string, readonly string[]>();
  return {
    async found(session) {
      const names = lists.get(session);
      if (!names) return [];
      lists.delete(session);
      lists.set(session, names);
      return names;
    },
    async keep(session, names) {
      lists.delete(session);
      lists.set(session, names.slice(0, MAX_NAMES));
      while (lists.size > maxSessions) lists.delete(lists.keys().next().value as string);
    },
    async forget(session) {
      lists.delete(session);
    },
  };
}
