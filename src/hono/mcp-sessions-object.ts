/**
 * The MCP gateway's sessions on Workers, in a Durable Object: the one thing a gateway session
 * must remember across requests (the tools its searches found, with `exposeFound`), kept where
 * every isolate reads the same list. One object per session (`idFromName(sessionId)`), so no
 * object is a bottleneck; a session untouched for a day deletes itself (an alarm), since a
 * client may never send its `DELETE`.
 *
 * Bind it as `MCP_SESSIONS` (wrangler.toml `[[durable_objects.bindings]]`, class
 * `McpSessionsObject`, exported by the worker's main module); `createWorker` then keeps found
 * tools there. Unbound, the gateway's list stays fixed on Workers.
 */
import type { GatewaySessions } from '../adapters/mcp/gateway-sessions.js';
import type { DurableNamespaceLike } from './proxy/tool-set-budget-object.js';

/** The part of a Durable Object's storage the session uses (structural). */
export interface SessionStorageLike {
  get<T>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  deleteAll(): Promise<void>;
  setAlarm(when: number): Promise<void>;
}

/** A session untouched this long is deleted: a day. */
const IDLE_MS = 24 * 60 * 60 * 1000;
const MAX_NAMES = 64;
const MAX_NAME_CHARS = 128;

/**
 * The Durable Object class: `GET` → `{ found }`, `PUT { found }`, `DELETE`.
 *
 * @example
 * // worker entry
 * export { McpSessionsObject } from 'loopctl/hono'
 */
export class McpSessionsObject {
  readonly #storage: SessionStorageLike;

  constructor(state: { storage: SessionStorageLike }) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return Response.json({ found: (await this.#storage.get<string[]>('found')) ?? [] });
    if (request.method === 'DELETE') {
      await this.#storage.deleteAll();
      return Response.json({ ok: true });
    }
    if (request.method !== 'PUT') return Response.json({ error: 'GET, PUT or DELETE' }, { status: 405 });
    let body: { found?: unknown };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return Response.json({ error: 'a JSON body is required' }, { status: 400 });
    }
    const { found } = body;
    if (
      !Array.isArray(found) ||
      found.length > MAX_NAMES ||
      !found.every((name) => typeof name === 'string' && name.length <= MAX_NAME_CHARS)
    )
      return Response.json({ error: `"found" must be at most ${MAX_NAMES} tool names` }, { status: 400 });
    await this.#storage.put('found', found);
    await this.#storage.setAlarm(Date.now() + IDLE_MS);
    return Response.json({ ok: true });
  }

  /** The session went idle: forget it. */
  async alarm(): Promise<void> {
    await this.#storage.deleteAll();
  }
}

/**
 * Gateway sessions kept by the {@link McpSessionsObject}s behind `namespace`, one per session.
 *
 * @example
 * createApp({ registry, mcpServers, mcpGateway: { sessions: durableGatewaySessions(env.MCP_SESSIONS) } })
 */
export function durableGatewaySessions(namespace: DurableNamespaceLike): GatewaySessions {
  const call = async (session: string, init: RequestInit): Promise<unknown> => {
    const stub = namespace.get(namespace.idFromName(`loopctl/mcp-session/v1/${session}`) as never);
    const response = await stub.fetch('https://mcp-sessions.invalid/session', init);
    const answer = (await response.json()) as { error?: string };
    if (!response.ok) throw new Error(`the MCP session store answered ${response.status}: ${answer.error ?? ''}`);
    return answer;
  };
  return {
    async found(session) {
      const { found } = (await call(session, { method: 'GET' })) as { found?: unknown };
      return Array.isArray(found) ? found.filter((name): name is string => typeof name === 'string') : [];
    },
    async keep(session, names) {
      await call(session, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ found: names.slice(0, MAX_NAMES) }),
      });
    },
    async forget(session) {
      await call(session, { method: 'DELETE' });
    },
  };
}
