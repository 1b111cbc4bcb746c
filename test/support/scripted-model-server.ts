/**
 * A scripted model server on loopback HTTP that speaks the real wire protocols: OpenAI Chat
 * Completions (`POST …/chat/completions`), the OpenAI Responses API (`POST …/responses`),
 * Anthropic Messages (`POST …/messages`) and Gemini's Interactions API (`POST …/interactions`),
 * as JSON or SSE (chosen by the request's `stream` field). It is the project's only model stand-in: the loop, worker (workerd, Deno) and
 * selector tests all drive real clients against it.
 *
 * - `server.url` is the origin (`http://127.0.0.1:PORT`). Use `server.openAIBaseURL`
 *   (`url + '/v1'`) for `openAIChatClient`, `openAIResponsesClient` and the `openai` SDK, and
 *   `server.anthropicBaseURL` (`url`) for `anthropicMessagesClient`; `url` is `@google/genai`'s
 *   `httpOptions.baseUrl`.
 * - Deferred loading (Anthropic `defer_loading`, Responses and Gemini `defer_loading` + `tool_search`):
 *   the scripted model sees only tools that are not deferred or that a search result earlier
 *   in the conversation referenced (`request.seenTools`); a script calling any other deferred
 *   tool is refused (HTTP 500) unless the call says `hallucinated: true`. Anthropic's hosted
 *   BM25 / regex searches run here (`hostedSearch` on a reply), and the requests the vendors
 *   refuse are refused (every custom tool deferred, over 10,000 tools, a `tool_reference` to
 *   an undeclared tool, deferred tools without a Responses or Gemini `tool_search`, a Gemini
 *   history calling a deferred function no `tool_search_result` loaded). Gemini's stored
 *   interactions are kept for `previous_interaction_id` (unless the request says `store: false`).
 * - Replies come from the queue (`server.enqueue(...)`) first, then from the `script`
 *   option; with neither, the server answers 500 so a test fails loudly.
 * - `server.requests` records everything received: method, path, headers, raw body, parsed
 *   JSON, and how the exchange ended (`completed`, `client-closed`, `server-closed`).
 * - `strict` (default on) rejects requests the real APIs reject (invalid tool names,
 *   `tool_choice` without tools, empty `tools`, unanswered tool calls, missing
 *   `anthropic-version`...) with the provider's 400, without consuming a queued reply.
 *
 * @example
 * const server = await startScriptedModelServer()
 * server.enqueue({ text: 'Hello there', textChunks: 3, usage: { inputTokens: 12, outputTokens: 3 } })
 * const client = openAIChatClient({ baseURL: server.openAIBaseURL, model: 'scripted' })
 * const reply = await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })
 * expect(server.requests[0]?.json).not.toHaveProperty('tools')
 * await server.close()
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  anthropicErrorType,
  anthropicEvents,
  anthropicJson,
  validateAnthropic,
} from './scripted-model/anthropic-wire.js';
import {
  anthropicSurface,
  type RequestSurface,
  responsesSurface,
  runHostedSearch,
} from './scripted-model/deferred-tools.js';
import {
  geminiEvents,
  geminiJson,
  geminiStreamError,
  geminiSurface,
  googleStatus,
  InteractionHistory,
  outputSteps,
  validateGemini,
} from './scripted-model/gemini-wire.js';
import { openAIEvents, openAIJson, validateOpenAI } from './scripted-model/openai-wire.js';
import { responsesError, responsesEvents, responsesJson, validateResponses } from './scripted-model/responses-wire.js';
import type {
  ExchangeOutcome,
  RecordedRequest,
  ScriptedInterrupt,
  ScriptedMessage,
  ScriptedModelServer,
  ScriptedModelServerOptions,
  ScriptedReply,
  WireProvider,
} from './scripted-model/types.js';
import type { WireEvent } from './scripted-model/wire-plan.js';
import { CREATED, isObject, planMessage, serialiseEvent } from './scripted-model/wire-plan.js';

export type {
  ExchangeOutcome,
  RecordedRequest,
  ScriptedError,
  ScriptedHang,
  ScriptedHostedSearch,
  ScriptedInterrupt,
  ScriptedMessage,
  ScriptedModelServer,
  ScriptedModelServerOptions,
  ScriptedRaw,
  ScriptedReply,
  ScriptedToolCall,
  WireProvider,
} from './scripted-model/types.js';

/**
 * Start a {@link ScriptedModelServer} on a free loopback port.
 *
 * @example
 * const server = await startScriptedModelServer({ script: () => ({ text: 'ok' }) })
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const { strict = true, host = '127.0.0.1' } = options;
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  // Gemini's stored interactions, for requests that name one as previous_interaction_id.
  const interactions = new InteractionHistory();
  let shuttingDown = false;

  const notify = (): void => {
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: `scripted server: ${String(error)}`, type: 'scripted_server_error' } }),
        );
      } else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBytes = new Uint8Array(Buffer.concat(chunks));
    const rawBody = Buffer.from(rawBytes).toString('utf8');
    let json: unknown;
    try {
      json = rawBody === '' ? undefined : JSON.parse(rawBody);
    } catch {
      json = undefined;
    }
    const path = req.url ?? '/';
    const pathname = path.split('?')[0] ?? '/';
    const provider: WireProvider | undefined = pathname.endsWith('/chat/completions')
      ? 'openai'
      : pathname.endsWith('/messages')
        ? 'anthropic'
        : pathname.endsWith('/responses')
          ? 'responses'
          : pathname.endsWith('/interactions')
            ? 'gemini'
            : undefined;
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    }

    let outcome: ExchangeOutcome | undefined;
    let serverClosed = false;
    let resolveSettled!: (value: ExchangeOutcome) => void;
    const settled = new Promise<ExchangeOutcome>((resolve) => (resolveSettled = resolve));
    res.on('close', () => {
      outcome = res.writableFinished ? 'completed' : serverClosed || shuttingDown ? 'server-closed' : 'client-closed';
      resolveSettled(outcome);
    });

    // Gemini: a stored interaction's steps come before this input (previous_interaction_id).
    const stored = provider === 'gemini' && isObject(json) ? interactions.expand(json) : undefined;
    const body = stored && !('missing' in stored) ? stored : json;
    const surface = isObject(body)
      ? provider === 'anthropic'
        ? anthropicSurface(body)
        : provider === 'responses'
          ? responsesSurface(body)
          : provider === 'gemini'
            ? geminiSurface(body)
            : undefined
      : undefined;
    const record: { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] } = {
      index: requests.length,
      method: req.method ?? 'GET',
      path,
      headers,
      rawBytes,
      rawBody,
      json,
      provider,
      stream: isObject(json) && json.stream === true,
      rejected: undefined,
      seenTools: surface ? [...surface.seen] : [],
      deferredTools: surface ? surface.deferred : [],
      get outcome() {
        return outcome;
      },
      settled,
    };
    requests.push(record);
    if (options.keepRequests !== undefined && requests.length > options.keepRequests)
      requests.splice(0, requests.length - options.keepRequests);
    notify();

    if (req.method === 'GET' && /\/v1\/models$/.test(pathname)) return sendJson(res, 200, modelList(headers));
    if (!provider || req.method !== 'POST') {
      return sendJson(res, 404, {
        error: { message: `scripted server: no route for ${req.method} ${path}`, type: 'not_found' },
      });
    }
    if (options.apiKey !== undefined) {
      const given =
        provider === 'anthropic'
          ? headers['x-api-key']
          : provider === 'gemini'
            ? headers['x-goog-api-key']
            : headers.authorization?.replace(/^Bearer\s+/i, '');
      if (given !== options.apiKey) {
        return sendJson(res, 401, errorBody(provider, 401, 'invalid api key', 'authentication_error'));
      }
    }
    if (stored && 'missing' in stored) return sendJson(res, 404, errorBody(provider, 404, String(stored.missing)));
    if (strict) {
      const problem = json === undefined ? 'request body is not valid JSON' : validate(provider, body, headers);
      if (problem !== undefined) {
        record.rejected = problem;
        return sendJson(res, 400, errorBody(provider, 400, problem, 'invalid_request_error'));
      }
    }

    const reply = queue.shift() ?? (options.script ? await options.script(record) : undefined);
    if (!reply) {
      return sendJson(res, 500, errorBody(provider, 500, 'scripted server: no reply queued', 'api_error'));
    }
    let serverBlocks: Record<string, unknown>[] = [];
    if (surface && (reply.kind === undefined || reply.kind === 'message')) {
      const planned = deferredPlan(provider, surface, reply);
      if (typeof planned === 'string')
        return sendJson(res, 500, errorBody(provider, 500, `scripted server: ${planned}`, 'api_error'));
      serverBlocks = planned;
    }
    if (provider === 'gemini' && isObject(body) && (reply.kind === undefined || reply.kind === 'message'))
      interactions.remember(`int_scripted_${record.index}`, body, outputSteps(planMessage(reply, record)));
    const closed = (): boolean => res.destroyed || outcome !== undefined;
    const exchange: Exchange = {
      res,
      closed,
      destroy: () => {
        serverClosed = true;
        res.destroy();
      },
      untilClosed: () => settled.then(() => undefined),
    };
    await answer(exchange, provider, record, reply, serverBlocks);
  }

  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;

  return {
    url,
    openAIBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    waitForRequests: (count) =>
      new Promise((resolve) => {
        const done = (): void => resolve(requests);
        if (requests.length >= count) done();
        else waiters.push({ count, resolve: done });
      }),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        shuttingDown = true;
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

interface Exchange {
  readonly res: ServerResponse;
  closed(): boolean;
  destroy(): void;
  untilClosed(): Promise<void>;
}

/**
 * What deferral changes about a scripted reply: a hosted search (Anthropic) runs here and its
 * blocks go first; a call to a deferred tool the model cannot see (not revealed earlier, nor by
 * that search) is a script error unless marked `hallucinated`. Returns the blocks, or the error.
 */
function deferredPlan(
  provider: WireProvider,
  surface: RequestSurface,
  reply: ScriptedMessage,
): Record<string, unknown>[] | string {
  const blocks: Record<string, unknown>[] = [];
  const seen = new Set(surface.seen);
  const search = reply.hostedSearch;
  if (search) {
    const kind = search.pattern !== undefined ? 'regex' : 'bm25';
    if (provider !== 'anthropic' || surface.hosted !== kind)
      return `the script runs a hosted ${kind} search, but the request declares ${surface.hosted ?? 'no hosted search'}`;
    const id = search.id ?? 'srvtoolu_scripted_0';
    const input = kind === 'regex' ? { pattern: search.pattern } : { query: search.query ?? '' };
    const answer = runHostedSearch(kind, input, surface.tools);
    blocks.push({ type: 'server_tool_use', id, name: `tool_search_tool_${kind}`, input });
    blocks.push({
      type: 'tool_search_tool_result',
      tool_use_id: id,
      content:
        'found' in answer
          ? {
              type: 'tool_search_tool_search_result',
              tool_references: answer.found.map((name) => ({ type: 'tool_reference', tool_name: name })),
            }
          : { type: 'tool_search_tool_result_error', error_code: answer.error, error_message: answer.message },
    });
    if ('found' in answer) for (const name of answer.found) seen.add(name);
  }
  for (const call of reply.toolCalls ?? []) {
    if (call.kind === 'tool_search') {
      if ((provider !== 'responses' && provider !== 'gemini') || !surface.clientSearch)
        return 'the script makes a tool_search_call, but the request declares no client-executed tool_search';
      continue;
    }
    if (surface.deferred.includes(call.name) && !seen.has(call.name) && !call.hallucinated) {
      return `the script calls ${call.name}, a deferred tool this request has not revealed (a real model cannot see it; mark the call hallucinated to send it anyway)`;
    }
  }
  return blocks;
}

async function answer(
  exchange: Exchange,
  provider: WireProvider,
  request: RecordedRequest,
  reply: ScriptedReply,
  serverBlocks: Record<string, unknown>[],
): Promise<void> {
  const { res } = exchange;
  if (reply.kind === 'hang') return exchange.untilClosed();
  if (reply.delayMs) await pause(reply.delayMs, exchange);
  if (exchange.closed()) return;

  if (reply.kind === 'error') {
    const body =
      reply.body === undefined
        ? errorBody(provider, reply.status, reply.message ?? 'scripted error', reply.type)
        : reply.body;
    res.writeHead(reply.status, {
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
      ...reply.headers,
    });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
    return;
  }

  if (reply.kind === 'raw') {
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
    res.flushHeaders();
    for (const [i, chunk] of reply.chunks.entries()) {
      if (i > 0 && reply.chunkDelayMs) await pause(reply.chunkDelayMs, exchange);
      if (exchange.closed()) return;
      res.write(chunk);
    }
    res.end();
    return;
  }

  const model = isObject(request.json) && typeof request.json.model === 'string' ? request.json.model : 'scripted';
  const plan = planMessage(reply, request, serverBlocks);
  if (!request.stream) {
    const body =
      provider === 'openai'
        ? openAIJson(plan, model, request.index)
        : provider === 'responses'
          ? responsesJson(plan, model, request)
          : provider === 'gemini'
            ? geminiJson(plan, model, request)
            : anthropicJson(plan, model, request.index);
    return sendJson(res, 200, body, reply.headers);
  }

  const le = reply.lineEnding ?? '\n';
  const events =
    provider === 'openai'
      ? openAIEvents(plan, model, request, reply.interleaveToolCalls ?? false)
      : provider === 'responses'
        ? responsesEvents(plan, model, request)
        : provider === 'gemini'
          ? geminiEvents(plan, model, request)
          : anthropicEvents(plan, model, request.index);
  const interrupt = reply.interrupt;
  const sent = interrupt ? events.slice(0, interrupt.afterEvents) : events;
  let text: (string | Uint8Array)[] = sent.map(
    (event) => serialiseEvent(event, le) + (reply.comments ? `: keep-alive${le}${le}` : ''),
  );
  if (interrupt?.action === 'malformed') {
    text.push(
      interrupt.data ??
        (provider === 'openai'
          ? `data: {"id":"chatcmpl-broken","choices":[{${le}${le}`
          : provider === 'responses'
            ? `event: response.output_text.delta${le}data: {"type":"response.output_text.delta",${le}${le}`
            : provider === 'gemini'
              ? `event: step.delta${le}data: {"event_type":"step.delta",${le}${le}`
              : `event: content_block_delta${le}data: {"type":"content_block_delta",${le}${le}`),
    );
  } else if (interrupt?.action === 'provider-error') {
    text.push(serialiseEvent(inStreamError(provider, interrupt), le));
  }
  if (reply.byteChunkSize) text = sliceBytes(text.join(''), reply.byteChunkSize);

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': `req_scripted_${request.index}`,
    ...reply.headers,
  });
  res.flushHeaders();
  for (const [i, piece] of text.entries()) {
    if (i > 0 && reply.chunkDelayMs) await pause(reply.chunkDelayMs, exchange);
    if (exchange.closed()) return;
    await write(res, piece);
  }
  if (interrupt?.action === 'hang') return exchange.untilClosed();
  if (interrupt?.action === 'close') {
    if (reply.chunkDelayMs) await pause(reply.chunkDelayMs, exchange);
    return exchange.destroy();
  }
  res.end();
}

function inStreamError(provider: WireProvider, interrupt: ScriptedInterrupt): WireEvent {
  const message = interrupt.message ?? 'Overloaded';
  if (provider === 'responses') return responsesError(message, interrupt.errorType ?? 'server_error');
  if (provider === 'gemini') return geminiStreamError(message, interrupt.errorType ?? 'overloaded');
  return provider === 'openai'
    ? { data: { error: { message, type: interrupt.errorType ?? 'server_error', param: null, code: null } } }
    : { event: 'error', data: { type: 'error', error: { type: interrupt.errorType ?? 'overloaded_error', message } } };
}

function errorBody(provider: WireProvider, status: number, message: string, type?: string): Record<string, unknown> {
  if (provider === 'anthropic') {
    return { type: 'error', error: { type: type ?? anthropicErrorType(status), message } };
  }
  // Google's status names are upper case; the OpenAI-style types the shared paths pass are not.
  if (provider === 'gemini')
    return { error: { code: status, message, status: type && /^[A-Z_]+$/.test(type) ? type : googleStatus(status) } };
  return {
    error: {
      message,
      type: type ?? (status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error'),
      param: null,
      code: status === 429 ? 'rate_limit_exceeded' : null,
    },
  };
}

// `GET /v1/models` in the provider's shape (Anthropic when the request names a version).
function modelList(headers: Record<string, string>): Record<string, unknown> {
  if (headers['anthropic-version']) {
    const data = [{ type: 'model', id: 'scripted', display_name: 'Scripted', created_at: '2026-01-01T00:00:00Z' }];
    return { data, has_more: false, first_id: 'scripted', last_id: 'scripted' };
  }
  return { object: 'list', data: [{ id: 'scripted', object: 'model', created: CREATED, owned_by: 'loopctl' }] };
}

// Strict validation: what the real APIs reject, so client bugs fail here too.

function validate(provider: WireProvider, json: unknown, headers: Record<string, string>): string | undefined {
  if (!isObject(json)) return 'request body must be a JSON object';
  if (provider === 'responses') return validateResponses(json);
  if (provider === 'gemini') return validateGemini(json);
  return provider === 'openai' ? validateOpenAI(json) : validateAnthropic(json, headers);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function write(res: ServerResponse, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (res.write(chunk)) resolve();
    else {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    }
  });
}

function pause(ms: number, exchange: Exchange): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void exchange.untilClosed().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function sliceBytes(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += Math.max(1, size)) pieces.push(bytes.subarray(i, i + Math.max(1, size)));
  return pieces;
}
