/**
 * One client request on its way through the proxy: the resolved settings, the protocol it
 * speaks, the request itself and the signal that says the client left. Every step of the
 * request path (`proxy-pipeline.ts`) reads this, and nothing else, for what is not its own input.
 */
import type { ProxyProtocol } from './proxy-protocol.js';
import type { ProxyConfig } from './proxy-settings.js';

/** One request's context. */
export interface RequestContext {
  readonly config: ProxyConfig;
  readonly protocol: ProxyProtocol;
  /** The client's request, as it arrived. */
  readonly raw: Request;
  /** Aborts when the client leaves. */
  readonly signal: AbortSignal;
  /** `performance.now()` when it arrived. */
  readonly arrived: number;
  /** Keeps work after the answer alive where the runtime would cancel it (Workers' `waitUntil`). */
  readonly waitUntil?: (work: Promise<unknown>) => void;
}

/**
 * The context of `raw`, arrived now.
 *
 * @example
 * const ctx = requestContext(config, openAIChat, c.req.raw)
 */
export function requestContext(
  config: ProxyConfig,
  protocol: ProxyProtocol,
  raw: Request,
  waitUntil?: (work: Promise<unknown>) => void,
): RequestContext {
  return {
    config,
    protocol,
    raw,
    signal: requestSignal(raw),
    arrived: performance.now(),
    ...(waitUntil ? { waitUntil } : {}),
  };
}

/**
 * The upstream URL for `path` on the request's upstream, with the client's query string.
 *
 * @example
 * upstreamURL(ctx, '/chat/completions') // 'https://api.openai.com/v1/chat/completions?x=1'
 */
export function upstreamURL(ctx: RequestContext, path: string): string {
  const url = ctx.raw.url;
  const at = url.indexOf('?');
  return `${ctx.config.upstreams[ctx.protocol.upstream.name]}${path}${at === -1 ? '' : url.slice(at)}`;
}

// Some runtimes expose no usable request signal; then nothing cancels but the body stream.
function requestSignal(raw: Request): AbortSignal {
  try {
    return raw.signal ?? new AbortController().signal;
  } catch {
    return new AbortController().signal;
  }
}
