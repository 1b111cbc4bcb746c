/**
 * Streamable HTTP: the SDK's client transport, with the mount's headers and `fetch`, HTTP
 * errors told apart (404 means the server forgot the session) and the session deleted on close.
 */

import type { ConnectionTransport, ServerTransport } from './transport.js';
import { waitAtMost } from './wait-at-most.js';

/** A `fetch` the transport uses instead of the global one (auth proxies, tests). */
export type McpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** What the HTTP transport needs, checked. */
export interface HttpSettings {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: McpFetch | undefined;
}

// Bounded so unmounting never hangs on a server that accepts the DELETE and never answers.
const TERMINATE_WAIT_MS = 2_000;

type HttpModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
let httpModule: Promise<HttpModule> | undefined;

/**
 * Parse the `url` option: an absolute http(s) URL.
 *
 * @example
 * parseHttpUrl('https://mcp.example.com/github').host // 'mcp.example.com'
 */
export function parseHttpUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`mountMcp: url must be an absolute http(s) URL, got ${JSON.stringify(String(value))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`mountMcp: url must be http(s), got ${url.protocol}`);
  }
  return url;
}

/**
 * Connections over Streamable HTTP to `settings.url`.
 *
 * @example
 * const transport = httpTransport({ url: new URL('http://127.0.0.1:9000/mcp'), headers: {}, fetch: undefined })
 *
 * @internal Not in the published types: it names the SDK's transport type.
 */
export function httpTransport(settings: HttpSettings): ServerTransport {
  return {
    async create(): Promise<ConnectionTransport> {
      httpModule ??= import('@modelcontextprotocol/sdk/client/streamableHttp.js').catch((error: unknown) => {
        httpModule = undefined;
        throw error;
      });
      const { StreamableHTTPClientTransport, StreamableHTTPError } = await httpModule;
      const { url, headers, fetch } = settings;
      // Wrapped so a browser's `window.fetch` is never invoked as a method of the transport.
      const via: McpFetch | undefined = fetch ? (input, init) => fetch(input, init) : undefined;
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...headers } },
        ...(via ? { fetch: via } : {}),
      });
      return {
        transport,
        classify: (error) =>
          error instanceof StreamableHTTPError ? (error.code === 404 ? 'session' : 'transport') : undefined,
        describe(error) {
          if (!(error instanceof StreamableHTTPError)) return undefined;
          const text = error.message.replace(/^Streamable HTTP error: /, '');
          return `HTTP ${error.code}: ${jsonRpcMessage(text) ?? text}`;
        },
        lostReason: () => undefined,
        // Tell the server the session is over (politely, bounded).
        end: () =>
          waitAtMost(
            transport.terminateSession().catch(() => undefined),
            TERMINATE_WAIT_MS,
          ),
      };
    },
  };
}

/** `prefix: {"jsonrpc":"2.0","error":{"message":"…"}}` → `prefix: …`, when the body is JSON-RPC. */
function jsonRpcMessage(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(text.slice(start)) as { error?: { message?: unknown } };
    const message = body?.error?.message;
    return typeof message === 'string' ? `${text.slice(0, start)}${message}` : undefined;
  } catch {
    return undefined;
  }
}
