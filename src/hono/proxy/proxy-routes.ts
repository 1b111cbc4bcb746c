/**
 * The selecting proxy as a Hono sub-app: `POST /v1/chat/completions` (OpenAI),
 * `POST /v1/messages` (Anthropic) and `GET /v1/models` (passed through). Each request's own
 * `tools` are its registry; the selector narrows them from the latest user text, the keep
 * rules protect the conversation, and the request goes upstream byte for byte except for its
 * `tools` array. The answer (JSON or SSE) streams back unchanged, with `x-loopctl-*` headers
 * saying what happened.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { FetchLike } from '../../model/http.js';
import { globalFetch } from '../../model/http.js';
import { LIMITS } from '../limits.js';
import type { AsyncToolSelector, SelectionContext } from '../../select/selector.js';
import { breakpointMove } from './cache-breakpoint.js';
import { forwardBody } from './forward-body.js';
import { clientHeaders, upstreamHeaders } from './forward-headers.js';
import { keepSet } from './keep-set.js';
import type { ProxyAuthMode, TokenVerifier } from './proxy-auth.js';
import { authorize } from './proxy-auth.js';
import { proxyControls } from './proxy-controls.js';
import { providerError } from './provider-errors.js';
import type { ProxyRequest, WireProtocol } from './proxy-types.js';
import { parseProxyRequest } from './proxy-request.js';
import { readBodyText } from './read-body.js';
import { UpstreamUnreachableError } from './upstream-unreachable.js';
import { clientBody } from './response-body.js';
import { ProxyRequestError } from './request-error.js';
import { selectTools } from './select-tools.js';
import type { ToolSetCache } from './tool-set-cache.js';
import { toolSetCache } from './tool-set-cache.js';
import { mergeOptions } from '../../options.js';
import { errorMessage } from '../../describe-error.js';

/** The proxy's own settings (env: `PROXY_*`). Every field has a default. */
export interface ProxySettings {
  /** Selector when a request names none (`PROXY_SELECTOR`). Default `hybrid`, or `keyword` without an embedder. */
  selector?: string;
  /** Tools kept per request when a request sets no `x-loopctl-k` (`PROXY_K`). Default 8. */
  k?: number;
  /** `token` (default) or `passthrough` (`PROXY_AUTH`); see `proxy-auth.ts`. */
  auth?: ProxyAuthMode;
  /** Upstream for `/v1/chat/completions`, including `/v1` (`PROXY_OPENAI_BASE_URL`). */
  openaiBaseURL?: string;
  /** Upstream origin for `/v1/messages` (`PROXY_ANTHROPIC_BASE_URL`). */
  anthropicBaseURL?: string;
  /** Largest request body forwarded (`PROXY_MAX_BODY_BYTES`). Default 8 MiB. */
  maxBodyBytes?: number;
  /**
   * The fetch used upstream. Default the app's fetch; `startNodeServer` supplies a keep-alive
   * `node:http` one (`node-upstream-fetch.ts`) unless the app was given a fetch.
   */
  fetch?: FetchLike;
}

/** The app's selectors by name (shared, so the proxy reuses warm corpora). */
export interface ProxySelectorTable {
  readonly names: readonly string[];
  get(name: string, k: number): Promise<AsyncToolSelector>;
  /** Whether `name` needs an embedder (the table's own rule). */
  isDense(name: string): boolean;
}

/** Options for {@link proxyRoutes}: the settings plus what the app shares with the proxy. */
export interface ProxyRoutesOptions extends ProxySettings {
  selectors: ProxySelectorTable;
  /** Whether the embedding selectors can run (an embedder is configured). */
  hasEmbedder?: boolean;
  /**
   * Checks the proxy token (`LOOPCTL_TOKEN`) in constant time, e.g. `tokenVerifier(env.LOOPCTL_TOKEN)`;
   * required in `token` mode (without it the proxy answers 503).
   */
  token?: TokenVerifier;
  /**
   * The app's model: its provider's upstream is the default for that protocol, and its
   * `apiKey` (`MODEL_API_KEY`) is what the upstream sees in `token` mode.
   */
  model?: { provider?: 'openai' | 'anthropic'; baseURL?: string; apiKey?: string };
  /** Server-side log for unexpected failures (never a key, never sent to clients). */
  onError?: (error: unknown) => void;
}

const DEFAULT_K = 8;
const DEFAULT_MAX_BODY = 8 * 1024 * 1024;

/** What the proxy decided for one request, reported in `x-loopctl-*` headers. */
interface Outcome {
  readonly registered: number;
  readonly advertised: number;
  readonly tokensSaved: number;
  readonly fellOpen?: string;
  readonly skipped?: 'bypass' | 'no-tools' | 'under-k';
  /** Milliseconds the proxy spent before calling the upstream (read, parse, select, splice). */
  readonly ms?: number;
}

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
  const defaults = { auth: 'token' as ProxyAuthMode, k: DEFAULT_K, maxBodyBytes: DEFAULT_MAX_BODY, fetch: globalFetch };
  const { selectors, hasEmbedder, model, token, onError, auth, k, maxBodyBytes, fetch: fetchUpstream } = mergeOptions(defaults, options);
  const defaultSelector = options.selector ?? (hasEmbedder ? 'hybrid' : 'keyword');
  if (!selectors.names.includes(defaultSelector)) {
    throw new RangeError(`proxy selector "${defaultSelector}" is not one of ${selectors.names.join(', ')}`);
  }
  if (!hasEmbedder && selectors.isDense(defaultSelector)) {
    throw new RangeError(`proxy selector "${defaultSelector}" needs an embedder, and none is configured`);
  }
  if (!(Number.isInteger(k) && k >= LIMITS.minK && k <= LIMITS.maxK)) {
    throw new RangeError(`proxy k must be an integer from ${LIMITS.minK} to ${LIMITS.maxK}, got ${k}`);
  }
  const upstreams: Record<WireProtocol, string | undefined> = {
    openai: trimSlash(options.openaiBaseURL ?? (model?.provider !== 'anthropic' ? (model?.baseURL ?? 'http://127.0.0.1:11434/v1') : undefined)),
    anthropic: trimSlash(options.anthropicBaseURL ?? (model?.provider === 'anthropic' ? (model.baseURL ?? 'https://api.anthropic.com') : undefined))?.replace(
      /\/v1$/,
      '',
    ),
  };
  const apiKey = auth === 'token' ? model?.apiKey : undefined;
  // Parsed tool lists per distinct tools text, one cache per protocol (the dialects differ).
  const toolSets: Record<WireProtocol, ToolSetCache> = { openai: toolSetCache(), anthropic: toolSetCache() };
  const app = new Hono();

  async function gate(c: Context, protocol: WireProtocol): Promise<Response | undefined> {
    if (!upstreams[protocol]) {
      const variable = protocol === 'openai' ? 'PROXY_OPENAI_BASE_URL' : 'PROXY_ANTHROPIC_BASE_URL';
      return providerError(protocol, 503, `no ${protocol} upstream is configured on this proxy (set ${variable})`);
    }
    const outcome = await authorize(c.req.raw, auth, token);
    if (outcome === 'not_configured') return providerError(protocol, 503, 'the proxy token (LOOPCTL_TOKEN) is not set on this server');
    if (outcome === 'unauthorized') {
      return providerError(protocol, 401, 'a valid proxy token is required (Authorization: Bearer <token> or x-api-key: <token>)', {
        headers: { 'www-authenticate': 'Bearer realm="loopctl"' },
      });
    }
    return undefined;
  }

  async function select(request: ProxyRequest, selector: string, topK: number, signal: AbortSignal): Promise<{ body: string; outcome: Outcome }> {
    const { tools, selectable: all, costs } = request;
    const ctx: SelectionContext = { turn: request.turn, latestUserMessage: request.query, conversation: request.conversation };
    const selection = await selectTools(() => selectors.get(selector, topK), ctx, all, signal);
    const keep = keepSet(tools, selection.names, request.toolChoice, request.called);
    const move = request.protocol === 'anthropic' ? breakpointMove(tools, keep.kept) : undefined;
    const body = forwardBody(request, keep.kept, move);
    const keptSet = new Set(keep.kept);
    let tokensSaved = 0;
    costs.forEach((cost, index) => {
      if (!keptSet.has(index)) tokensSaved += cost;
    });
    const fellOpen = selection.fellOpen ?? keep.fellOpen;
    return {
      body,
      outcome: {
        registered: tools.length,
        advertised: keep.kept.length,
        tokensSaved,
        ...(fellOpen !== undefined ? { fellOpen } : {}),
      },
    };
  }

  async function handle(c: Context, protocol: WireProtocol): Promise<Response> {
    const arrived = performance.now();
    try {
      const refused = await gate(c, protocol);
      if (refused) return refused;
      const controls = proxyControls(c.req.raw.headers, { names: selectors.names, selector: defaultSelector, k });
      if (controls.explicitSelector && !hasEmbedder && selectors.isDense(controls.selector)) {
        throw new ProxyRequestError(
          400,
          `x-loopctl-selector: "${controls.selector}" needs an embedder, and none is configured on this server`,
          'x-loopctl-selector',
        );
      }
      const text = await readBodyText(c.req.raw, maxBodyBytes);
      const request = parseProxyRequest(protocol, text, toolSets[protocol]);
      const signal = requestSignal(c);
      let body = text;
      let outcome: Outcome;
      const count = request.tools.length;
      if (controls.bypass) outcome = { registered: count, advertised: count, tokensSaved: 0, skipped: 'bypass' };
      else if (count === 0) outcome = { registered: 0, advertised: 0, tokensSaved: 0, skipped: 'no-tools' };
      else if (count < controls.k) outcome = { registered: count, advertised: count, tokensSaved: 0, skipped: 'under-k' };
      else {
        const started = Date.now();
        ({ body, outcome } = await select(request, controls.selector, controls.k, signal));
        // A cold corpus can hold the event loop for seconds (WASM embedding), long enough for
        // an idle keep-alive connection to the upstream to be closed by the other side. One
        // turn of the event loop lets the runtime notice before fetch reuses it.
        if (Date.now() - started > 1000) await new Promise((done) => setTimeout(done, 0));
      }
      const path = protocol === 'openai' ? '/chat/completions' : '/v1/messages';
      outcome = { ...outcome, ms: performance.now() - arrived };
      return await forward(c, protocol, `${upstreams[protocol]}${path}${search(c)}`, 'POST', body, outcome, signal);
    } catch (error) {
      if (error instanceof ProxyRequestError) return providerError(protocol, error.status, error.message, error.param ? { param: error.param } : {});
      if (requestSignal(c).aborted) return providerError(protocol, 400, 'the client closed the request');
      onError?.(error);
      return providerError(protocol, 500, 'the proxy failed to handle this request; see the server log');
    }
  }

  async function forward(
    c: Context,
    protocol: WireProtocol,
    url: string,
    method: 'GET' | 'POST',
    body: string | undefined,
    outcome: Outcome | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    const sent = upstreamHeaders(c.req.raw.headers, protocol, auth, apiKey);
    // fetch would label a string body text/plain; the body is JSON whatever the client said.
    if (body !== undefined && !sent.has('content-type')) sent.set('content-type', 'application/json');
    let upstream: Response;
    try {
      upstream = await fetchUpstream(url, {
        method,
        headers: sent,
        ...(body !== undefined ? { body } : {}),
        signal,
        redirect: 'manual',
      });
    } catch (error) {
      if (signal.aborted) return providerError(protocol, 400, 'the client closed the request');
      onError?.(new UpstreamUnreachableError(protocol, upstreams[protocol] ?? url, error));
      return providerError(protocol, 502, `the ${protocol} upstream could not be reached`);
    }
    const headers = clientHeaders(upstream.headers);
    if (outcome) {
      headers.set('x-loopctl-registered', String(outcome.registered));
      headers.set('x-loopctl-advertised', String(outcome.advertised));
      headers.set('x-loopctl-tokens-saved', String(outcome.tokensSaved));
      if (outcome.fellOpen !== undefined) headers.set('x-loopctl-fell-open', headerText(outcome.fellOpen));
      if (outcome.skipped !== undefined) headers.set('x-loopctl-skipped', outcome.skipped);
      if (outcome.ms !== undefined) headers.append('server-timing', `loopctl;dur=${outcome.ms.toFixed(2)};desc="proxy before upstream"`);
    }
    // The upstream body as is: SSE streamed through unbuffered, any other answer up to 256 KiB whole.
    let answer: BodyInit | null;
    try {
      answer = await clientBody(upstream);
    } catch (error) {
      if (signal.aborted) return providerError(protocol, 400, 'the client closed the request');
      onError?.(new Error(`proxy: the ${protocol} upstream answer was cut off: ${errorMessage(error)}`, { cause: error }));
      return providerError(protocol, 502, `the ${protocol} upstream closed the connection before its answer was complete`);
    }
    return new Response(answer, { status: upstream.status, statusText: upstream.statusText, headers });
  }

  app.post('/v1/chat/completions', (c) => handle(c, 'openai'));
  app.post('/v1/messages', (c) => handle(c, 'anthropic'));
  app.get('/v1/models', async (c) => {
    const protocol: WireProtocol = upstreams.anthropic && (c.req.header('anthropic-version') !== undefined || !upstreams.openai) ? 'anthropic' : 'openai';
    try {
      const refused = await gate(c, protocol);
      if (refused) return refused;
      const path = protocol === 'openai' ? '/models' : '/v1/models';
      return await forward(c, protocol, `${upstreams[protocol]}${path}${search(c)}`, 'GET', undefined, undefined, requestSignal(c));
    } catch (error) {
      onError?.(error);
      return providerError(protocol, 500, 'the proxy failed to handle this request; see the server log');
    }
  });
  return app;
}

function trimSlash(url: string | undefined): string | undefined {
  return url?.replace(/\/+$/, '');
}

function search(c: Context): string {
  const url = c.req.url;
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at);
}

// Some runtimes expose no usable request signal; then nothing cancels but the body stream.
function requestSignal(c: Context): AbortSignal {
  try {
    return c.req.raw.signal ?? new AbortController().signal;
  } catch {
    return new AbortController().signal;
  }
}

/** A header-safe rendering of a reason: printable ASCII, bounded. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 200);
}
