/**
 * The selecting proxy as a Hono sub-app: one `POST` route per wire protocol (by default
 * `/v1/chat/completions` for OpenAI Chat Completions, `/v1/messages` for Anthropic Messages,
 * `/v1/responses` for OpenAI Responses; see `protocols/`) and `GET /v1/models` (passed through).
 * Each request's own `tools` are its registry; the tool policy (`tool-policy.ts`) decides what
 * is forwarded and how the model reaches the rest (the proxy's server-side search,
 * `search-rounds.ts`); the keep rules protect the conversation and the vendors' own tool
 * search; the request goes upstream byte for byte except for what the policy rewrites. The
 * answer (JSON or SSE) streams back, with `x-loopctl-*` headers saying what happened. The path
 * a request takes is `proxy-pipeline.ts`.
 */

import { Hono } from 'hono';
import { learnedRoutes } from './learn/learned-routes.js';
import { providerError } from './provider-errors.js';
import { forward } from './proxy-forward.js';
import { gate, handleProxyRequest } from './proxy-pipeline.js';
import type { ProxyProtocol } from './proxy-protocol.js';
import type { ProxyConfig, ProxyRoutesOptions } from './proxy-settings.js';
import { proxyConfig } from './proxy-settings.js';
import type { RequestContext } from './request-context.js';
import { requestContext, upstreamURL } from './request-context.js';

export type { ProxyRoutesOptions, ProxySelectorTable, ProxySettings } from './proxy-settings.js';

/**
 * Build the proxy routes. Mount them before any `/v1/*` middleware that would demand another
 * credential: the proxy authenticates by itself (see `proxy-auth.ts`).
 *
 * @example
 * const app = new Hono()
 * app.route('/', proxyRoutes({ selectors: namedSelectors(), token: tokenVerifier(env.LOOPCTL_TOKEN), model: { baseURL: 'https://api.openai.com/v1', apiKey: env.MODEL_API_KEY } }))
 * // client: new OpenAI({ baseURL: 'https://proxy.example/v1', apiKey: env.LOOPCTL_TOKEN })
 */
export function proxyRoutes(options: ProxyRoutesOptions): Hono {
  const config = proxyConfig(options);
  const app = new Hono();
  for (const protocol of config.protocols)
    app.post(protocol.route, (c) =>
      handleProxyRequest(requestContext(config, protocol, c.req.raw, config.learning ? waitUntilOf(c) : undefined)),
    );
  if (config.learning) app.route('/', learnedRoutes(config, config.learning));
  app.get('/v1/models', (c) =>
    listModels(requestContext(config, modelsProtocol(config, c.req.raw.headers), c.req.raw)),
  );
  return app;
}

/** The runtime's `waitUntil` where it has one (Workers); Hono's getter throws elsewhere. */
function waitUntilOf(c: { executionCtx: { waitUntil(work: Promise<unknown>): void } }) {
  try {
    const context = c.executionCtx;
    return (work: Promise<unknown>) => context.waitUntil(work);
  } catch {
    return undefined;
  }
}

/** `GET /v1/models`, passed through to the chosen protocol's upstream. */
async function listModels(ctx: RequestContext): Promise<Response> {
  try {
    const refused = await gate(ctx);
    if (refused) return refused;
    const path = ctx.protocol.models?.path ?? '/v1/models';
    return await forward(ctx, {
      url: upstreamURL(ctx, path),
      method: 'GET',
      body: undefined,
      outcome: undefined,
      stream: false,
    });
  } catch (error) {
    ctx.config.onError?.(error);
    return providerError(ctx.protocol, 500, 'the proxy failed to handle this request; see the server log');
  }
}

/**
 * Whose model list a `GET /v1/models` gets: a protocol with an upstream whose headers the
 * request carries (`anthropic-version`), else the first protocol with a model list when its
 * upstream is configured, else the first with an upstream configured, else the first.
 */
function modelsProtocol(config: ProxyConfig, headers: Headers): ProxyProtocol {
  const listing = config.protocols.filter((protocol) => protocol.models !== undefined);
  const configured = (protocol: ProxyProtocol): boolean => Boolean(config.upstreams[protocol.upstream.name]);
  const first = listing[0] ?? (config.protocols[0] as ProxyProtocol);
  return (
    listing.find((protocol) => configured(protocol) && protocol.models?.claims?.(headers) === true) ??
    (configured(first) ? first : undefined) ??
    listing.find(configured) ??
    first
  );
}
