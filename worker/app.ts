/**
 * The loopctl HTTP API as one runtime-agnostic Hono app: web-standard APIs only, so the same
 * module serves Cloudflare Workers, Deno and Node (see the entries next to it).
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import { cors } from 'hono/cors';
import { BareLoop } from '../src/loop/bare-loop.js';
import type { LoopConfig } from '../src/loop/bare-loop.js';
import type { ModelClient } from '../src/model/client.js';
import { anthropicMessagesClient } from '../src/model/anthropic-messages.js';
import type { FetchLike } from '../src/model/http.js';
import { globalFetch } from '../src/model/http.js';
import { openAIChatClient } from '../src/model/openai-chat.js';
import { applySelection } from '../src/select/apply-selection.js';
import type { SelectionContext, SelectorOutput } from '../src/select/selector.js';
import type { ToolSchema } from '../src/registry/schema.js';
import type { VectorCache } from '../src/embed/vector-cache.js';
import type { VectorsSource } from '../src/embed/vectors-source.js';
import { approxTokenCounter } from '../src/tokens/token-counter.js';
import { ToolRegistry } from '../src/registry/registry.js';
import { toolsCost } from '../src/registry/tool-cost.js';
import { ApiError, errorResponse } from './api-error.js';
import { bearerToken, tokenCheck } from './bearer-auth.js';
import { registerDemoTools } from '../demo/demo-tools.js';
import { readJsonBody } from './json-body.js';
import { modelProbe } from './model-probe.js';
import { parseRunInput, parseSelectInput } from './request-input.js';
import { streamRun } from './run-stream.js';
import type { EmbedderSource, SelectorFactory } from './selector-table.js';
import { selectorTable } from './selector-table.js';
import type { ProxySettings } from '../src/hono/proxy/index.js';
import { proxyRoutes } from '../src/hono/proxy/index.js';

/** Which model the runs talk to. */
export interface ModelOptions {
  /** Wire protocol. Default `openai` (Chat Completions, as Ollama, vLLM and llama.cpp speak it). */
  provider?: 'openai' | 'anthropic';
  /** Default `http://127.0.0.1:11434/v1` (a local Ollama) for openai, Anthropic's API for anthropic. */
  baseURL?: string;
  /** Default `qwen3:4b` (openai) or `claude-haiku-4-5` (anthropic). */
  model?: string;
  apiKey?: string;
}

/** Options for {@link createApp}. Every field has a default. */
export interface AppOptions {
  /** The tools runs may call. Default: the demo tools ({@link registerDemoTools}). */
  registry?: ToolRegistry;
  model?: ModelOptions;
  /**
   * The bearer token every `/v1/*` route requires (`LOOPCTL_TOKEN`). Unset: `/v1/*` answers
   * 503, so a deployment that forgot its secret is closed, not open.
   */
  token?: string;
  /** Origins allowed to call the API from a browser; `['*']` allows any. Default none (closed). */
  corsOrigins?: readonly string[];
  /** Enables the `embedding` selector: an embedder, or a lazy factory (called once). */
  embedder?: EmbedderSource;
  /** Where the embedding selector persists corpus vectors (e.g. `kvVectorCache(env.VECTORS)`). */
  vectorCache?: VectorCache;
  /**
   * A precomputed vectors file (`loopctl vectors`) seeding the embedding selector, so a cold
   * isolate's first selection embeds only the prompt. A bad file is ignored with a warning.
   */
  vectors?: VectorsSource;
  /** Extra selectors by name (e.g. `hybrid`), merged over the built-in ones. */
  selectors?: Readonly<Record<string, SelectorFactory>>;
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
  /** Where internal errors are reported (never to clients). Default `console.error`. */
  onError?: (error: unknown) => void;
  /** The selecting proxy (`/v1/chat/completions`, `/v1/messages`, `/v1/models`); see docs/proxy.md. */
  proxy?: ProxySettings;
}

const DEFAULTS = {
  corsOrigins: [] as readonly string[],
  defaultSelector: 'keyword',
  defaultMaxTurns: 8,
  maxBodyBytes: 256 * 1024,
  probeGraceMs: 1500,
  fetch: globalFetch,
  onError: (error: unknown) => console.error('[loopctl]', error),
};

const SYSTEM_PROMPT =
  'You are a helpful assistant with tools. Call a tool when it helps answer; otherwise answer directly and briefly.';

/**
 * Build the API: `GET /healthz`, and behind a bearer token `GET /v1/tools`,
 * `POST /v1/select` (which tools a prompt would advertise) and `POST /v1/runs` (a whole loop
 * run streamed as server-sent events). Errors are always `{ "error": { "code", "message" } }`.
 *
 * @example
 * const app = createApp({ token: env.LOOPCTL_TOKEN, model: { baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen3:4b' } })
 * export default app // Workers, Deno.serve(app.fetch), or @hono/node-server's serve(app)
 *
 * @example
 * // curl -H "Authorization: Bearer $LOOPCTL_TOKEN" -d '{"prompt":"weather in Oslo","selector":"bm25","k":4}' \
 * //   http://127.0.0.1:8787/v1/select
 */
export function createApp(options: AppOptions = {}): Hono {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  const registry = settings.registry ?? registerDemoTools(new ToolRegistry());
  const model = resolveModel(settings.model);
  const token = settings.token ? settings.token : undefined;
  const check = token ? tokenCheck(token) : undefined;
  const secrets = [token, model.apiKey].filter((value): value is string => Boolean(value));
  const selectors = selectorTable({
    ...(settings.embedder ? { embedder: settings.embedder } : {}),
    ...(settings.vectorCache ? { vectorCache: settings.vectorCache } : {}),
    ...(settings.vectors !== undefined ? { vectors: settings.vectors } : {}),
    ...(settings.selectors ? { extra: settings.selectors } : {}),
    onError: settings.onError,
  });
  if (!selectors.names.includes(settings.defaultSelector)) {
    throw new RangeError(`defaultSelector "${settings.defaultSelector}" is not one of ${selectors.names.join(', ')}`);
  }

  const app = new Hono();

  app.onError((error) => {
    if (error instanceof ApiError) return errorResponse(error);
    settings.onError(error);
    return errorResponse(new ApiError(500, 'internal', 'internal error'));
  });
  app.notFound(() => errorResponse(new ApiError(404, 'not_found', 'no such route')));

  if (settings.corsOrigins.length > 0) {
    const allowed = new Set(settings.corsOrigins);
    app.use(
      '*',
      cors({
        origin: (origin) => (allowed.has('*') ? '*' : allowed.has(origin) ? origin : null),
        allowMethods: ['GET', 'POST', 'OPTIONS'],
        allowHeaders: ['Authorization', 'Content-Type'],
        maxAge: 600,
      }),
    );
  }

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  // Before the /v1/* token gate: the proxy authenticates by itself (token or pass-through).
  app.route('/', proxyRoutes({ ...settings.proxy, selectors, hasEmbedder: Boolean(settings.embedder), ...(check ? { token: check } : {}), model, fetch: settings.fetch, onError: settings.onError }));

  app.use('/v1/*', async (c, next) => {
    if (!check) throw new ApiError(503, 'not_configured', 'LOOPCTL_TOKEN is not set');
    const presented = bearerToken(c.req.raw);
    if (presented === undefined || !(await check.verify(presented))) {
      return errorResponse(new ApiError(401, 'unauthorized', 'a valid "Authorization: Bearer <LOOPCTL_TOKEN>" header is required'), {
        'www-authenticate': 'Bearer realm="loopctl"',
      });
    }
    await next();
  });

  app.get('/v1/tools', (c) =>
    c.json({
      tools: registry.schemas().map(({ name, description }) => ({ name, description })),
      generation: registry.generation,
    }),
  );

  app.post('/v1/select', async (c) => {
    const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
    const input = parseSelectInput(body, selectors.names, settings.defaultSelector);
    const installed = await selectors.get(input.selector, input.k);
    const all = registry.schemas();
    const ctx: SelectionContext = { turn: 1, latestUserMessage: input.prompt, conversation: [{ role: 'user', content: input.prompt }] };
    const started = performance.now();
    let output: SelectorOutput | readonly ToolSchema[];
    if (installed.kind === 'sync') {
      const { selector } = installed;
      output = selector.selectDetailed ? selector.selectDetailed(ctx, all) : selector.select(ctx, all);
    } else {
      const { selector } = installed;
      // Not the request's signal: Deno aborts it after every response, and a warm selection
      // takes milliseconds; a run (below) is what a disconnect must cancel.
      const signal = new AbortController().signal;
      output = selector.selectDetailed ? await selector.selectDetailed(ctx, all, { signal }) : await selector.select(ctx, all, { signal });
    }
    const ms = performance.now() - started;
    const selection = applySelection(output, all);
    return c.json({
      selector: input.selector,
      advertised: selection.names,
      registered: all.length,
      fellOpen: selection.fellOpen !== undefined,
      ...(selection.fellOpen !== undefined ? { reason: selection.fellOpen } : {}),
      advertisedTokens: toolsCost(selection.tools, approxTokenCounter),
      registryTokens: toolsCost(all, approxTokenCounter),
      ms: Math.round(ms * 1000) / 1000,
      ...(selection.warnings.length ? { warnings: selection.warnings } : {}),
      reasons: selection.reasons,
    });
  });

  app.post('/v1/runs', async (c) => {
    const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
    const input = parseRunInput(body, selectors.names, settings.defaultSelector, settings.defaultMaxTurns);
    const installed = await selectors.get(input.selector, input.k);
    const probe = modelProbe(settings.fetch);
    const loop = new BareLoop({
      client: makeClient(model, probe.fetch),
      registry,
      config: { system: SYSTEM_PROMPT, ...settings.loop, constraint: input.constraint, maxTurns: input.maxTurns },
    });
    if (installed.kind === 'sync') loop.withToolSelector(installed.selector);
    else loop.withAsyncToolSelector(installed.selector);
    return streamRun({
      start: (signal) => loop.run(input.input, { signal }),
      probe: probe.first,
      requestSignal: requestSignal(c),
      graceMs: settings.probeGraceMs,
      secrets,
    });
  });

  return app;
}

function resolveModel(options: ModelOptions | undefined): Required<Omit<ModelOptions, 'apiKey' | 'baseURL'>> & ModelOptions {
  const provider = options?.provider ?? 'openai';
  const defaults = provider === 'anthropic' ? { model: 'claude-haiku-4-5' } : { model: 'qwen3:4b', baseURL: 'http://127.0.0.1:11434/v1' };
  return { provider, ...defaults, ...stripUndefined(options ?? {}) };
}

function makeClient(model: ModelOptions & { provider: 'openai' | 'anthropic'; model: string }, fetch: FetchLike): ModelClient {
  const common = {
    model: model.model,
    fetch,
    ...(model.baseURL ? { baseURL: model.baseURL } : {}),
    ...(model.apiKey ? { apiKey: model.apiKey } : {}),
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

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
