/**
 * The loopctl HTTP API as one runtime-agnostic Hono app: web-standard APIs only, so the same
 * module serves Cloudflare Workers, Deno and Node (see the runtime helpers beside it).
 */

import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { every } from 'hono/combine';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { validator } from 'hono/validator';
import type { VectorCache } from '../embed/vector-cache.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { LoopConfig } from '../loop/bare-loop.js';
import { BareLoop } from '../loop/bare-loop.js';
import { anthropicMessagesClient } from '../model/anthropic-messages.js';
import type { ModelClient } from '../model/client.js';
import type { FetchLike } from '../model/http.js';
import { globalFetch } from '../model/http.js';
import { openAIChatClient } from '../model/openai-chat.js';
import type { MergedOptions } from '../options.js';
import { mergeOptions } from '../options.js';
import type { ToolRegistry } from '../registry/registry.js';
import { provideValidator } from '../registry/registry.js';
import { toolsCost } from '../registry/tool-cost.js';
import * as argumentValidator from '../registry/validate.js';
import type { EmbedderSource, NamedSelectorFactory } from '../select/named-selectors.js';
import { runSelection } from '../select/run-selection.js';
import type { SelectionContext } from '../select/selector.js';
import { approxTokenCounter } from '../tokens/token-counter.js';
import { allowedHostsGuard } from './allowed-hosts.js';
import { ApiError, errorResponse } from './api-error.js';
import type { ApiSelectors } from './api-selectors.js';
import { apiSelectors, EmbedderUnavailableError } from './api-selectors.js';
import type { AppEnv } from './app-env.js';
import { jsonBody } from './json-body.js';
import { kNote } from './k-note.js';
import type { McpRouteOptions } from './mcp-route.js';
import { MCP_PATH, mcpRoutes } from './mcp-route.js';
import { modelProbe } from './model-probe.js';
import type { ProxySettings } from './proxy/index.js';
import { proxyRoutes, tokenVerifier, UpstreamUnreachableError } from './proxy/index.js';
import { rankedTools } from './ranked-tools.js';
import type { RunInput, SelectInput } from './request-input.js';
import { parseRunInput, parseSelectInput } from './request-input.js';
import type { StreamRunOptions } from './run-stream.js';
import { streamRun } from './run-stream.js';
import type { SettingValues } from './setting.js';
import { settingDefaults } from './setting.js';
import { APP_SETTINGS, MODEL_DEFAULTS, MODEL_SETTINGS } from './settings.js';
import type { UploadBudget } from './upload-budget.js';
import { uploadBudget } from './upload-budget.js';

// The app dispatches tools on every run: it carries the argument validator from the start
// instead of loading it mid-request (the core loads it lazily).
provideValidator(argumentValidator);

/** Which model the runs talk to: the settings `MODEL_SETTINGS` declares (`MODEL_*`), defaults in `MODEL_DEFAULTS`. */
export type ModelOptions = SettingValues<typeof MODEL_SETTINGS>;

/**
 * Options for {@link createApp}. Every field but `registry` has a default. The fields a variable
 * sets too (`token`, `corsOrigins`, `allowedHosts`, `maxNewEmbeds`, `uploadBufferBytes`) are
 * declared once in `APP_SETTINGS` (`settings.ts`: variable, default, bound, doc line).
 */
export interface AppOptions extends SettingValues<typeof APP_SETTINGS> {
  /** The tools runs may call and selections choose from. */
  registry: ToolRegistry;
  model?: ModelOptions;
  /** Enables the `embedding` and `hybrid` selectors: an embedder, or a lazy factory (called once). */
  embedder?: EmbedderSource;
  /** Where the embedding selector persists corpus vectors (e.g. `kvVectorCache(env.VECTORS)`). */
  cache?: VectorCache;
  /**
   * A precomputed vectors file (`loopctl vectors`) seeding the embedding selector, so a cold
   * isolate's first selection embeds only the prompt. A bad file is ignored with a warning.
   */
  vectors?: VectorsSource;
  /** Extra selectors by name, merged over the built-in ones. */
  selectors?: Readonly<Record<string, NamedSelectorFactory>>;
  /** The selector used when a request names none. Default `keyword`. */
  defaultSelector?: string;
  /** The fetch model clients use. Default the global fetch. */
  fetch?: FetchLike;
  /** Loop settings for runs (system prompt, context window…); per-request fields override. */
  loop?: LoopConfig;
  /** Turns per run when a request sets no `maxTurns`. Default 8. */
  defaultMaxTurns?: number;
  /** Largest accepted request body. Default 256 KiB. */
  maxBodyBytes?: number;
  /** How long a run waits for the model's first answer before streaming anyway. Default 1500 ms. */
  probeGraceMs?: number;
  /** How often a quiet run stream writes an SSE comment, to notice a client that left. Default 250 ms. */
  heartbeatMs?: number;
  /**
   * Where internal errors are reported (never to clients). Default: `console.error`, except an
   * `UpstreamUnreachableError` (the proxy's model server is not running), which is one plain
   * `console.info` line saying what to start (info: what wrangler dev shows as a plain line).
   */
  onError?: (error: unknown) => void;
  /** The selecting proxy (`/v1/chat/completions`, `/v1/messages`, `/v1/models`); see docs/proxy.md. */
  proxy?: ProxySettings;
  /** How `/mcp` runs here, when `mcpServers` (`LOOPCTL_MCP_SERVERS`) turns it on; see docs/mcp.md. */
  mcpGateway?: McpRouteOptions;
}

const DEFAULTS = {
  ...settingDefaults(APP_SETTINGS),
  corsOrigins: [] as readonly string[],
  defaultSelector: 'keyword',
  defaultMaxTurns: 8,
  maxBodyBytes: 256 * 1024,
  probeGraceMs: 1500,
  heartbeatMs: 250,
  fetch: globalFetch,
  onError: reportError,
};

/**
 * The default `onError`: an upstream that is not running yet is one plain line saying what to
 * start (no stack: it is the normal first state of a local set-up), an embedder that cannot load
 * one line saying what to fix; anything else is an internal error, logged whole.
 */
function reportError(error: unknown): void {
  if (error instanceof UpstreamUnreachableError) console.info(`[loopctl] ${error.message}`);
  // Written for the operator already (the folder, the reason, the fix): one line.
  else if (error instanceof EmbedderUnavailableError) console.error(`[loopctl] ${error.message}`);
  else console.error('[loopctl]', error);
}

/** RFC 6750 `b64token`: what `Authorization: Bearer` can carry. */
const TOKEN_CHARS = /^[A-Za-z0-9._~+/-]+=*$/;

const SYSTEM_PROMPT =
  'You are a helpful assistant with tools. Call a tool when it helps answer; otherwise answer directly and briefly.';

/**
 * Build the API: `GET /healthz`, and behind a bearer token `GET /v1/tools`,
 * `POST /v1/select` (which tools a prompt would advertise) and `POST /v1/runs` (a whole loop
 * run streamed as server-sent events). Every non-2xx answer is `{ "error": { "code", "message" } }`.
 *
 * @example
 * const registry = new ToolRegistry().register(weatherTool, getWeather)
 * const app = createApp({ registry, token: env.LOOPCTL_TOKEN, model: { baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen3:4b' } })
 * export default app // Workers, Deno.serve(app.fetch), or @hono/node-server's serve(app)
 */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const server = serverOf(options);
  const { settings, registry, selectors, token } = server;
  const app = new Hono<AppEnv>();
  app.onError((error) => answerError(error, settings.onError));
  app.notFound(() => errorResponse(new ApiError(404, 'not_found', 'no such route')));
  // Before anything else: a request naming a host this server does not answer to (a DNS-rebound
  // page) gets nothing but the refusal.
  if (settings.allowedHosts) app.use('*', allowedHostsGuard(settings.allowedHosts));
  // The client's own signal, kept before body middleware replaces the request.
  app.use('*', async (c, next) => {
    c.set('clientSignal', requestSignal(c));
    await next();
  });
  if (settings.corsOrigins.length > 0) useCors(app, settings.corsOrigins);
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  // The selecting proxy, before the /v1/* token gate: it authenticates by itself (token or
  // pass-through) and shares the app's selectors, so its corpora stay warm too.
  app.route(
    '/',
    proxyRoutes({
      ...settings.proxy,
      selectors,
      hasEmbedder: Boolean(settings.embedder),
      token: token ? tokenVerifier(token) : undefined,
      model: server.model,
      fetch: settings.proxy?.fetch ?? settings.fetch,
      onError: settings.onError,
      uploadBudget: server.budget,
    }),
  );
  app.use('/v1/*', token ? bearer(token) : notConfigured);
  mountMcp(app, server);
  app.get('/v1/tools', (c) =>
    c.json({
      tools: registry.schemas().map(({ name, description }) => ({ name, description })),
      generation: registry.generation,
    }),
  );
  const body = every(...jsonBody({ maxBytes: settings.maxBodyBytes, budget: server.budget }));
  const { names } = selectors;
  app.post(
    '/v1/select',
    body,
    validator('json', (value) => parseSelectInput(value, names, settings.defaultSelector)),
    async (c) => c.json(await selectAnswer(server, c.req.valid('json'))),
  );
  app.post(
    '/v1/runs',
    body,
    validator('json', (value) => parseRunInput(value, names, settings.defaultSelector, settings.defaultMaxTurns)),
    async (c) => streamRun(c, await runOptions(server, c.req.valid('json'), c.get('clientSignal'))),
  );
  answerOtherMethods(app);
  return app;
}

/**
 * `/mcp` behind the same token as `/v1/*` when servers are configured; else a 404 that says
 * which variable turns it on.
 */
function mountMcp(app: Hono<AppEnv>, server: Server): void {
  const { settings, token, selectors } = server;
  const servers = settings.mcpServers?.trim();
  if (!servers) {
    app.all(MCP_PATH, () =>
      errorResponse(new ApiError(404, 'not_found', `set LOOPCTL_MCP_SERVERS to serve the MCP gateway at ${MCP_PATH}`)),
    );
    return;
  }
  app.use(MCP_PATH, token ? bearer(token) : notConfigured);
  app.route(
    '/',
    mcpRoutes({
      ...settings.mcpGateway,
      servers,
      // The hybrid with the app's embedder (and its shared corpus cache), else BM25.
      selector: settings.embedder ? () => selectors.get('hybrid', 8) : undefined,
      maxBodyBytes: settings.maxBodyBytes,
      budget: server.budget,
      onError: settings.onError,
    }),
  );
}

/** What the routes share: the settings over their defaults, checked, and what they derive. */
interface Server {
  readonly settings: MergedOptions<typeof DEFAULTS, AppOptions>;
  readonly registry: ToolRegistry;
  readonly model: ResolvedModel;
  readonly token: string | undefined;
  /** One budget for every route that reads a body: the cap is on what this process holds. */
  readonly budget: UploadBudget;
  readonly selectors: ApiSelectors;
  /** What no event may carry: the token and the model's key. */
  readonly secrets: readonly string[];
}

/** The options over their defaults, checked (a RangeError or TypeError names a bad one). */
function serverOf(options: AppOptions): Server {
  const settings = mergeOptions(DEFAULTS, options);
  const { registry } = settings;
  if (!registry) throw new TypeError('createApp: "registry" is required (a ToolRegistry of the tools to serve)');
  const model = resolveModel(settings.model);
  const token = settings.token ? settings.token : undefined;
  const budget = uploadBudget(settings.uploadBufferBytes);
  if (token !== undefined && !TOKEN_CHARS.test(token)) {
    throw new RangeError(
      'the token may hold only A-Z a-z 0-9 - . _ ~ + / (and trailing =), as a Bearer header carries it',
    );
  }
  if (!(Number.isInteger(settings.maxNewEmbeds) && settings.maxNewEmbeds >= 1))
    throw new RangeError(`maxNewEmbeds must be a positive integer, got ${settings.maxNewEmbeds}`);
  const secrets = [token, model.apiKey].filter((value): value is string => Boolean(value));
  const selectors = apiSelectors({
    embedder: settings.embedder,
    cache: settings.cache,
    vectors: settings.vectors,
    maxNewTexts: settings.maxNewEmbeds,
    extra: settings.selectors,
    onError: settings.onError,
  });
  if (!selectors.names.includes(settings.defaultSelector)) {
    throw new RangeError(`defaultSelector "${settings.defaultSelector}" is not one of ${selectors.names.join(', ')}`);
  }
  return { settings, registry, model, token, budget, selectors, secrets };
}

/** Any error a route threw, in the API's shape; an unexpected one goes to `onError` first. */
function answerError(error: Error, onError: (error: unknown) => void): Response {
  if (error instanceof ApiError) return errorResponse(error);
  // bearerAuth's refusals already carry our JSON body and the challenge header.
  if (error instanceof HTTPException) return error.res ? error.getResponse() : errorResponse(fromHttpException(error));
  onError(error);
  return errorResponse(new ApiError(500, 'internal', 'internal error'));
}

/** CORS for the API's own routes: `OPTIONS /` stays a JSON 404. */
function useCors(app: Hono<AppEnv>, origins: readonly string[]): void {
  const allowed = new Set(origins);
  const preflight = cors({
    origin: (origin) => (allowed.has('*') ? '*' : allowed.has(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type'],
    maxAge: 600,
  });
  app.use('/healthz', preflight);
  app.use('/v1/*', preflight);
  // A browser MCP client sends and reads the session and version headers.
  app.use(
    MCP_PATH,
    cors({
      origin: (origin) => (allowed.has('*') ? '*' : allowed.has(origin) ? origin : null),
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID'],
      exposeHeaders: ['Mcp-Session-Id'],
      maxAge: 600,
    }),
  );
}

/** `POST /v1/select`'s answer: which tools the prompt would advertise, and why. */
async function selectAnswer(server: Server, input: SelectInput) {
  const { selectors, registry } = server;
  const selector = await selectors.get(input.selector, input.k);
  const all = registry.schemas();
  const ctx: SelectionContext = {
    turn: 1,
    latestUserMessage: input.prompt,
    conversation: [{ role: 'user', content: input.prompt }],
  };
  const started = performance.now();
  // No signal: a warm selection takes milliseconds, and the corpus build it may join serves
  // every later request; a run (below) is what a disconnect must cancel.
  const selection = await runSelection(selector, ctx, all);
  const ms = performance.now() - started;
  const notes = input.k !== undefined && !selectors.usesK(input.selector) ? [kNote(input.selector)] : [];
  return {
    selector: input.selector,
    advertised: selection.names,
    ranked: rankedTools(selection),
    ...(notes.length ? { notes } : {}),
    registered: all.length,
    fellOpen: selection.fellOpen !== undefined,
    ...(selection.fellOpen !== undefined ? { reason: selection.fellOpen } : {}),
    advertisedTokens: toolsCost(selection.tools, approxTokenCounter),
    registryTokens: toolsCost(all, approxTokenCounter),
    ms: Math.round(ms * 1000) / 1000,
    ...(selection.warnings.length ? { warnings: selection.warnings } : {}),
    reasons: selection.reasons,
  };
}

/** `POST /v1/runs`: a loop over the app's model and registry, streamed by {@link streamRun}. */
async function runOptions(
  server: Server,
  input: RunInput,
  requestSignal: AbortSignal | undefined,
): Promise<StreamRunOptions> {
  const { settings } = server;
  const selector = await server.selectors.get(input.selector, input.k);
  const probe = modelProbe(settings.fetch);
  const loop = new BareLoop({
    client: makeClient(server.model, probe.fetch),
    registry: server.registry,
    config: mergeOptions({ system: SYSTEM_PROMPT }, settings.loop, {
      constraint: input.constraint,
      maxTurns: input.maxTurns,
    }),
  });
  loop.withAsyncToolSelector(selector);
  return {
    start: (signal) => loop.run(input.input, { signal }),
    probe: probe.first,
    requestSignal,
    graceMs: settings.probeGraceMs,
    heartbeatMs: settings.heartbeatMs,
    secrets: server.secrets,
  };
}

/** A known path asked with another method: 405 with Allow, not a 404. */
function answerOtherMethods(app: Hono<AppEnv>): void {
  const methods: Record<string, string> = {
    '/healthz': 'GET, HEAD',
    '/v1/tools': 'GET, HEAD',
    '/v1/select': 'POST',
    '/v1/runs': 'POST',
  };
  for (const [path, allow] of Object.entries(methods)) {
    app.all(path, () =>
      errorResponse(new ApiError(405, 'method_not_allowed', `${path} accepts ${allow.replace(', ', ' and ')}`), {
        allow,
      }),
    );
  }
}

function bearer(token: string): MiddlewareHandler {
  const unauthorized = (): Response =>
    errorResponse(
      new ApiError(401, 'unauthorized', 'a valid "Authorization: Bearer <LOOPCTL_TOKEN>" header is required'),
    );
  const challenge = 'Bearer realm="loopctl"';
  return bearerAuth({
    token,
    realm: 'loopctl',
    noAuthenticationHeader: { message: unauthorized, wwwAuthenticateHeader: challenge },
    invalidAuthenticationHeader: { message: unauthorized, wwwAuthenticateHeader: challenge },
    invalidToken: { message: unauthorized, wwwAuthenticateHeader: challenge },
  });
}

const notConfigured: MiddlewareHandler = async () => {
  throw new ApiError(503, 'not_configured', 'LOOPCTL_TOKEN is not set');
};

/** Hono's own refusals (a bearer challenge, malformed JSON) in the API's error shape. */
function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 400 && /json/i.test(error.message))
    return new ApiError(400, 'invalid_json', 'the body is not valid JSON');
  if (error.status === 413) return new ApiError(413, 'body_too_large', 'the body is too large');
  if (error.status === 401)
    return new ApiError(401, 'unauthorized', 'a valid "Authorization: Bearer <LOOPCTL_TOKEN>" header is required');
  return new ApiError(
    error.status === 404 ? 404 : 400,
    error.status === 404 ? 'not_found' : 'bad_request',
    error.message || 'bad request',
  );
}

/** The model with its provider's defaults (`MODEL_DEFAULTS`). */
type ResolvedModel = Required<Omit<ModelOptions, 'apiKey' | 'baseURL'>> & ModelOptions;

function resolveModel(options: ModelOptions | undefined): ResolvedModel {
  const provider = options?.provider ?? MODEL_SETTINGS.provider.default;
  return mergeOptions({ provider, ...MODEL_DEFAULTS[provider] }, options);
}

function makeClient(model: ResolvedModel, fetch: FetchLike): ModelClient {
  const common = {
    model: model.model,
    fetch,
    // An empty baseURL (a blank variable) means the client's default too.
    baseURL: model.baseURL || undefined,
    apiKey: model.apiKey,
  };
  return model.provider === 'anthropic' ? anthropicMessagesClient(common) : openAIChatClient(common);
}

// Some runtimes expose no usable request signal; the stream's cancel still covers disconnects.
function requestSignal(c: Context): AbortSignal | undefined {
  try {
    return c.req.raw.signal;
  } catch {
    return undefined;
  }
}

export type { AppEnv } from './app-env.js';
