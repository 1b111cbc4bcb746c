/**
 * A scripted model server on loopback HTTP that speaks the real wire protocols: OpenAI Chat
 * Completions (`POST …/chat/completions`) and Anthropic Messages (`POST …/messages`), as JSON
 * or SSE (chosen by the request's `stream` field). It is the project's only model stand-in:
 * the loop, worker (workerd, Deno) and selector tests all drive real clients against it.
 *
 * - `server.url` is the origin (`http://127.0.0.1:PORT`). Use `server.openAIBaseURL`
 *   (`url + '/v1'`) for `openAIChatClient` and `server.anthropicBaseURL` (`url`) for
 *   `anthropicMessagesClient`.
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

/** The wire protocol a request used, from its path. */
export type WireProvider = 'openai' | 'anthropic';

/** One tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Defaults to `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic). */
  readonly id?: string;
  /** The name as it goes on the wire (a client maps it back to the registered name). */
  readonly name: string;
  /** JSON text (sent verbatim, even if malformed) or an object to serialise. */
  readonly arguments: string | Record<string, unknown>;
  /** Stream the arguments in this many fragments (split by code point), or exactly these. */
  readonly chunks?: number | readonly string[];
}

/** What went wrong mid-stream, after `afterEvents` wire events were sent. */
export interface ScriptedInterrupt {
  readonly afterEvents: number;
  /**
   * - `hang`: send nothing more; wait until the client closes.
   * - `close`: destroy the connection (a reset mid-stream).
   * - `end`: end the response cleanly without the terminal event (`[DONE]`/`message_stop`).
   * - `malformed`: send a broken event (`data`, or a default truncated JSON), then end.
   * - `provider-error`: send the provider's in-stream error event, then end.
   */
  readonly action: 'hang' | 'close' | 'end' | 'malformed' | 'provider-error';
  /** Raw SSE text for `malformed` (sent verbatim). */
  readonly data?: string;
  /** For `provider-error`: the error type (default `overloaded_error` / `server_error`). */
  readonly errorType?: string;
  readonly message?: string;
}

/** A normal model reply: text and/or tool calls, streamed or as JSON. */
export interface ScriptedMessage {
  readonly kind?: 'message';
  /** The reply text; an array gives the exact stream chunks. */
  readonly text?: string | readonly string[];
  /** Split `text` into this many chunks (by code point). Default: word by word. */
  readonly textChunks?: number;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** OpenAI only: interleave parallel calls' argument fragments (reassembly by index). */
  readonly interleaveToolCalls?: boolean;
  /** Reported usage; default estimated from sizes; `false` sends none. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number } | false;
  /** The raw finish/stop reason; default `stop`/`tool_calls` or `end_turn`/`tool_use`. */
  readonly finishReason?: string;
  /** Wait before sending headers. */
  readonly delayMs?: number;
  /** Wait between writes while streaming. */
  readonly chunkDelayMs?: number;
  /** Write the SSE bytes in slices of this size (splits lines, events, UTF-8 anywhere). */
  readonly byteChunkSize?: number;
  readonly lineEnding?: '\n' | '\r\n';
  /** Add SSE comment lines (`: keep-alive`) between events. */
  readonly comments?: boolean;
  readonly interrupt?: ScriptedInterrupt;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An HTTP error in the provider's format (body overridable), e.g. a 429 with Retry-After. */
export interface ScriptedError {
  readonly kind: 'error';
  readonly status: number;
  readonly message?: string;
  /** The provider error type; default derived from the status. */
  readonly type?: string;
  /** Replaces the provider-shaped body: a string is sent verbatim, an object as JSON. */
  readonly body?: string | Record<string, unknown>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
}

/** Never answer; the request stays open until the client gives up (recorded as `client-closed`). */
export interface ScriptedHang {
  readonly kind: 'hang';
}

/** Exact bytes: for protocol edge cases the other replies cannot express. */
export interface ScriptedRaw {
  readonly kind: 'raw';
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly chunks: readonly (string | Uint8Array)[];
  readonly chunkDelayMs?: number;
  readonly delayMs?: number;
}

/** Anything the scripted model can answer. */
export type ScriptedReply = ScriptedMessage | ScriptedError | ScriptedHang | ScriptedRaw;

/** How an exchange ended. */
export type ExchangeOutcome = 'completed' | 'client-closed' | 'server-closed';

/** One request as the server received it. */
export interface RecordedRequest {
  readonly index: number;
  readonly method: string;
  /** Path including any query string. */
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's exact bytes. */
  readonly rawBytes: Uint8Array;
  readonly rawBody: string;
  /** The parsed body, or undefined when it was not JSON. */
  readonly json: unknown;
  readonly provider: WireProvider | undefined;
  /** The request asked for SSE (`"stream": true`). */
  readonly stream: boolean;
  /** Set when strict validation rejected the request (the 400's message). */
  readonly rejected: string | undefined;
  /** Undefined while the exchange is in flight. */
  readonly outcome: ExchangeOutcome | undefined;
  /** Resolves when the exchange ends, with how it ended. */
  readonly settled: Promise<ExchangeOutcome>;
}

/** Options for {@link startScriptedModelServer}. */
export interface ScriptedModelServerOptions {
  /** Answers requests once the queue is empty. */
  readonly script?: (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Reject what the real APIs reject (default true). */
  readonly strict?: boolean;
  /** When set, require this key (`Authorization: Bearer` / `x-api-key`), else 401. */
  readonly apiKey?: string;
  /** Keep only the most recent this many requests in `requests` (benchmarks). Default all. */
  readonly keepRequests?: number;
  /** Idle keep-alive connections close after this long. Default Node's (5 s); hosted APIs keep them longer. */
  readonly keepAliveTimeoutMs?: number;
  readonly host?: string;
}

/** A running scripted server. */
export interface ScriptedModelServer {
  /** The origin, e.g. `http://127.0.0.1:53211`. */
  readonly url: string;
  /** `url + '/v1'`: the `baseURL` for `openAIChatClient`. */
  readonly openAIBaseURL: string;
  /** `url`: the `baseURL` for `anthropicMessagesClient`. */
  readonly anthropicBaseURL: string;
  readonly requests: readonly RecordedRequest[];
  /** Replies still queued. */
  readonly pending: number;
  enqueue(...replies: ScriptedReply[]): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<readonly RecordedRequest[]>;
  /** Drop queued replies and recorded requests. */
  reset(): void;
  /** Close every connection (hanging ones included) and stop listening. */
  close(): Promise<void>;
}

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const CREATED = 1_700_000_000;

/**
 * Start a {@link ScriptedModelServer} on a free loopback port.
 *
 * @example
 * const server = await startScriptedModelServer({ script: () => ({ text: 'ok' }) })
 */
export async function startScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const { strict = true, host = '127.0.0.1' } = options;
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
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
        res.end(JSON.stringify({ error: { message: `scripted server: ${String(error)}`, type: 'scripted_server_error' } }));
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
      get outcome() {
        return outcome;
      },
      settled,
    };
    requests.push(record);
    if (options.keepRequests !== undefined && requests.length > options.keepRequests) requests.splice(0, requests.length - options.keepRequests);
    notify();

    if (req.method === 'GET' && /\/v1\/models$/.test(pathname)) return sendJson(res, 200, modelList(headers));
    if (!provider || req.method !== 'POST') {
      return sendJson(res, 404, { error: { message: `scripted server: no route for ${req.method} ${path}`, type: 'not_found' } });
    }
    if (options.apiKey !== undefined) {
      const given = provider === 'openai' ? headers.authorization?.replace(/^Bearer\s+/i, '') : headers['x-api-key'];
      if (given !== options.apiKey) {
        return sendJson(res, 401, errorBody(provider, 401, 'invalid api key', 'authentication_error'));
      }
    }
    if (strict) {
      const problem = json === undefined ? 'request body is not valid JSON' : validate(provider, json, headers);
      if (problem !== undefined) {
        record.rejected = problem;
        return sendJson(res, 400, errorBody(provider, 400, problem, 'invalid_request_error'));
      }
    }

    const reply = queue.shift() ?? (options.script ? await options.script(record) : undefined);
    if (!reply) {
      return sendJson(res, 500, errorBody(provider, 500, 'scripted server: no reply queued', 'api_error'));
    }
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
    await answer(exchange, provider, record, reply);
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

async function answer(
  exchange: Exchange,
  provider: WireProvider,
  request: RecordedRequest,
  reply: ScriptedReply,
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
  const plan = planMessage(reply, request);
  if (!request.stream) {
    const body = provider === 'openai' ? openAIJson(plan, model, request.index) : anthropicJson(plan, model, request.index);
    return sendJson(res, 200, body, reply.headers);
  }

  const le = reply.lineEnding ?? '\n';
  const events =
    provider === 'openai'
      ? openAIEvents(plan, model, request, reply.interleaveToolCalls ?? false)
      : anthropicEvents(plan, model, request.index);
  const interrupt = reply.interrupt;
  const sent = interrupt ? events.slice(0, interrupt.afterEvents) : events;
  let text: (string | Uint8Array)[] = sent.map((event) => serialiseEvent(event, le) + (reply.comments ? `: keep-alive${le}${le}` : ''));
  if (interrupt?.action === 'malformed') {
    text.push(
      interrupt.data ??
        (provider === 'openai'
          ? `data: {"id":"chatcmpl-broken","choices":[{${le}${le}`
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

// ---------------------------------------------------------------------------------------
// Reply planning and wire rendering

interface PlannedCall {
  id: string;
  name: string;
  args: string;
  fragments: string[];
}

interface Plan {
  textChunks: string[];
  text: string;
  calls: PlannedCall[];
  usage: { inputTokens: number; outputTokens: number } | undefined;
  finishReason: string | undefined;
}

function planMessage(reply: ScriptedMessage, request: RecordedRequest): Plan {
  const textChunks =
    reply.text === undefined
      ? []
      : typeof reply.text === 'string'
        ? reply.textChunks !== undefined
          ? splitInto(reply.text, reply.textChunks)
          : splitWords(reply.text)
        : [...reply.text];
  const text = textChunks.join('');
  const calls = (reply.toolCalls ?? []).map((call, i) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const fragments =
      call.chunks === undefined ? [args] : typeof call.chunks === 'number' ? splitInto(args, call.chunks) : [...call.chunks];
    return { id: call.id ?? '', name: call.name, args: fragments.join(''), fragments, index: i };
  });
  const outputChars = text.length + calls.reduce((sum, call) => sum + call.args.length, 0);
  const usage =
    reply.usage === false
      ? undefined
      : (reply.usage ?? {
          inputTokens: Math.ceil(request.rawBody.length / 4),
          outputTokens: Math.max(1, Math.ceil(outputChars / 4)),
        });
  return { textChunks, text, calls, usage, finishReason: reply.finishReason };
}

type WireEvent = { event?: string; data: unknown };

function serialiseEvent(event: WireEvent, le: string): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}${le}` : ''}data: ${data}${le}${le}`;
}

function openAIEvents(plan: Plan, model: string, request: RecordedRequest, interleave: boolean): WireEvent[] {
  const json = isObject(request.json) ? request.json : {};
  const includeUsage = isObject(json.stream_options) && json.stream_options.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): WireEvent => ({
    data: {
      id: `chatcmpl-scripted-${request.index}`,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    },
  });
  const events: WireEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of plan.textChunks) events.push(chunk({ content: piece }));
  const ids = plan.calls.map((call, i) => call.id || `call_${i}`);
  const head = (i: number): WireEvent =>
    chunk({
      tool_calls: [{ index: i, id: ids[i], type: 'function', function: { name: plan.calls[i]?.name, arguments: '' } }],
    });
  const fragment = (i: number, piece: string): WireEvent =>
    chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] });
  if (interleave) {
    plan.calls.forEach((_, i) => events.push(head(i)));
    const longest = Math.max(0, ...plan.calls.map((call) => call.fragments.length));
    for (let f = 0; f < longest; f++) {
      plan.calls.forEach((call, i) => {
        const piece = call.fragments[f];
        if (piece !== undefined) events.push(fragment(i, piece));
      });
    }
  } else {
    plan.calls.forEach((call, i) => {
      events.push(head(i));
      for (const piece of call.fragments) events.push(fragment(i, piece));
    });
  }
  events.push(chunk({}, plan.finishReason ?? (plan.calls.length > 0 ? 'tool_calls' : 'stop')));
  if (includeUsage && plan.usage) {
    events.push({
      data: {
        id: `chatcmpl-scripted-${request.index}`,
        object: 'chat.completion.chunk',
        created: CREATED,
        model,
        choices: [],
        usage: openAIUsage(plan.usage),
      },
    });
  }
  events.push({ data: '[DONE]' });
  return events;
}

function openAIJson(plan: Plan, model: string, index: number): Record<string, unknown> {
  return {
    id: `chatcmpl-scripted-${index}`,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: plan.text === '' && plan.calls.length > 0 ? null : plan.text,
          refusal: null,
          ...(plan.calls.length > 0
            ? {
                tool_calls: plan.calls.map((call, i) => ({
                  id: call.id || `call_${i}`,
                  type: 'function',
                  function: { name: call.name, arguments: call.args },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: plan.finishReason ?? (plan.calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(plan.usage ? { usage: openAIUsage(plan.usage) } : {}),
  };
}

function openAIUsage(usage: { inputTokens: number; outputTokens: number }): Record<string, number> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function anthropicEvents(plan: Plan, model: string, index: number): WireEvent[] {
  const event = (type: string, data: Record<string, unknown>): WireEvent => ({ event: type, data: { type, ...data } });
  const events: WireEvent[] = [
    event('message_start', {
      message: {
        id: `msg_scripted_${index}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...(plan.usage ? { usage: { input_tokens: plan.usage.inputTokens, output_tokens: 1 } } : {}),
      },
    }),
    event('ping', {}),
  ];
  let block = 0;
  if (plan.textChunks.length > 0) {
    events.push(event('content_block_start', { index: block, content_block: { type: 'text', text: '' } }));
    for (const piece of plan.textChunks) {
      events.push(event('content_block_delta', { index: block, delta: { type: 'text_delta', text: piece } }));
    }
    events.push(event('content_block_stop', { index: block }));
    block++;
  }
  plan.calls.forEach((call, i) => {
    const id = call.id || `toolu_${i}`;
    events.push(event('content_block_start', { index: block, content_block: { type: 'tool_use', id, name: call.name, input: {} } }));
    for (const piece of ['', ...call.fragments]) {
      events.push(event('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    events.push(event('content_block_stop', { index: block }));
    block++;
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: plan.finishReason ?? (plan.calls.length > 0 ? 'tool_use' : 'end_turn'), stop_sequence: null },
      ...(plan.usage ? { usage: { output_tokens: plan.usage.outputTokens } } : {}),
    }),
  );
  events.push(event('message_stop', {}));
  return events;
}

function anthropicJson(plan: Plan, model: string, index: number): Record<string, unknown> {
  return {
    id: `msg_scripted_${index}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(plan.text !== '' ? [{ type: 'text', text: plan.text }] : []),
      ...plan.calls.map((call, i) => ({
        type: 'tool_use',
        id: call.id || `toolu_${i}`,
        name: call.name,
        input: JSON.parse(call.args === '' ? '{}' : call.args) as unknown,
      })),
    ],
    stop_reason: plan.finishReason ?? (plan.calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    ...(plan.usage ? { usage: { input_tokens: plan.usage.inputTokens, output_tokens: plan.usage.outputTokens } } : {}),
  };
}

function inStreamError(provider: WireProvider, interrupt: ScriptedInterrupt): WireEvent {
  const message = interrupt.message ?? 'Overloaded';
  return provider === 'openai'
    ? { data: { error: { message, type: interrupt.errorType ?? 'server_error', param: null, code: null } } }
    : { event: 'error', data: { type: 'error', error: { type: interrupt.errorType ?? 'overloaded_error', message } } };
}

function errorBody(provider: WireProvider, status: number, message: string, type?: string): Record<string, unknown> {
  if (provider === 'anthropic') {
    return { type: 'error', error: { type: type ?? anthropicErrorType(status), message } };
  }
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

function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

// ---------------------------------------------------------------------------------------
// Strict validation: what the real APIs reject, so client bugs fail here too.

function validate(provider: WireProvider, json: unknown, headers: Record<string, string>): string | undefined {
  if (!isObject(json)) return 'request body must be a JSON object';
  return provider === 'openai' ? validateOpenAI(json) : validateAnthropic(json, headers);
}

function validateOpenAI(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "'messages' must be a non-empty array";
  if (body.stream_options !== undefined && body.stream !== true) {
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  }
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "'tools' must be an array";
    if (body.tools.length === 0) return "[] is too short - 'tools'";
    for (const tool of body.tools) {
      if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) return 'each tool must be {type: "function", function: {...}}';
      const name = tool.function.name;
      if (typeof name !== 'string' || !WIRE_NAME.test(name)) {
        return `Invalid 'tools[].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'. Got ${JSON.stringify(name)}`;
      }
      if (toolNames.has(name)) return `duplicate tool name ${name}`;
      toolNames.add(name);
      if (tool.function.parameters !== undefined && !isObject(tool.function.parameters)) return `tool ${name}: parameters must be an object`;
    }
  }
  if (body.tool_choice !== undefined) {
    if (body.tools === undefined) return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
    const choice = body.tool_choice;
    if (typeof choice === 'string') {
      if (!['auto', 'none', 'required'].includes(choice)) return `Invalid value for 'tool_choice': ${choice}`;
    } else if (!isObject(choice) || choice.type !== 'function' || !isObject(choice.function) || typeof choice.function.name !== 'string') {
      return "Invalid value for 'tool_choice'";
    } else if (!toolNames.has(choice.function.name)) {
      return `tool_choice names ${choice.function.name}, which is not in tools`;
    }
  }
  let awaiting: Set<string> | undefined;
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message)) return `messages[${i}] must be an object`;
    const role = message.role;
    if (role !== 'tool' && awaiting && awaiting.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`;
    }
    if (role === 'system' || role === 'developer' || role === 'user') {
      if (typeof message.content !== 'string' && !Array.isArray(message.content)) return `messages[${i}].content must be a string or an array`;
      awaiting = undefined;
    } else if (role === 'assistant') {
      awaiting = undefined;
      if (message.tool_calls !== undefined) {
        if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return `messages[${i}].tool_calls must be a non-empty array`;
        awaiting = new Set();
        for (const call of message.tool_calls) {
          if (!isObject(call) || typeof call.id !== 'string' || call.type !== 'function' || !isObject(call.function)) {
            return `messages[${i}].tool_calls: each call needs id, type "function" and function`;
          }
          if (typeof call.function.name !== 'string' || !WIRE_NAME.test(call.function.name)) {
            return `messages[${i}].tool_calls: invalid function name ${JSON.stringify(call.function.name)}`;
          }
          if (typeof call.function.arguments !== 'string') return `messages[${i}].tool_calls: arguments must be a string`;
          awaiting.add(call.id);
        }
      } else if (typeof message.content !== 'string') {
        return `messages[${i}]: an assistant message needs content or tool_calls`;
      }
    } else if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') return `messages[${i}].tool_call_id is required`;
      if (!awaiting?.has(message.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      awaiting.delete(message.tool_call_id);
      if (typeof message.content !== 'string' && !Array.isArray(message.content)) return `messages[${i}].content must be a string`;
    } else {
      return `messages[${i}].role: invalid role ${JSON.stringify(role)}`;
    }
  }
  if (awaiting && awaiting.size > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`;
  }
  return undefined;
}

function validateAnthropic(body: Record<string, unknown>, headers: Record<string, string>): string | undefined {
  if (!headers['anthropic-version']) return 'anthropic-version: header is required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return 'max_tokens: Field required';
  }
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) return 'system: must be a string or blocks';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools: must be an array';
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string' || !WIRE_NAME.test(tool.name)) {
        return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      }
      if (!isObject(tool.input_schema) || tool.input_schema.type !== 'object') return `tools.${i}.custom.input_schema: must be an object schema`;
      if (toolNames.has(tool.name)) return `tools: Tool names must be unique.`;
      toolNames.add(tool.name);
    }
  }
  if (body.tool_choice !== undefined) {
    if (body.tools === undefined) return 'tool_choice: may only be specified while providing tools (scripted server, strict)';
    const choice = body.tool_choice;
    if (!isObject(choice) || !['auto', 'any', 'none', 'tool'].includes(String(choice.type))) return 'tool_choice: invalid';
    if (choice.type === 'tool' && (typeof choice.name !== 'string' || !toolNames.has(choice.name))) {
      return `tool_choice: tool ${String(choice.name)} not found in tools`;
    }
  }
  let previousToolUses = new Set<string>();
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message)) return `messages.${i}: must be an object`;
    const role = message.role;
    if (role !== 'user' && role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const isLast = i === body.messages.length - 1;
    const content = message.content;
    const blocks: Record<string, unknown>[] = [];
    if (typeof content === 'string') {
      if (content === '' && !(isLast && role === 'assistant')) {
        return 'messages: all messages must have non-empty content except for the optional final assistant message';
      }
    } else if (Array.isArray(content)) {
      if (content.length === 0 && !(isLast && role === 'assistant')) {
        return 'messages: all messages must have non-empty content except for the optional final assistant message';
      }
      for (const block of content) {
        if (!isObject(block)) return `messages.${i}.content: blocks must be objects`;
        blocks.push(block);
      }
    } else return `messages.${i}.content: must be a string or an array of blocks`;

    const toolUses = new Set<string>();
    let seenOther = false;
    const answered = new Set<string>();
    for (const [j, block] of blocks.entries()) {
      if (block.type === 'text') {
        if (typeof block.text !== 'string' || block.text === '') return `messages.${i}.content.${j}.text: text content blocks must be non-empty`;
        seenOther = true;
      } else if (block.type === 'tool_use') {
        if (role !== 'assistant') return `messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`;
        if (typeof block.id !== 'string' || typeof block.name !== 'string' || !WIRE_NAME.test(block.name)) {
          return `messages.${i}.content.${j}.tool_use: invalid id or name ${JSON.stringify(block.name)}`;
        }
        if (!isObject(block.input)) return `messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary`;
        toolUses.add(block.id);
      } else if (block.type === 'tool_result') {
        if (role !== 'user') return `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`;
        if (seenOther) return `messages.${i}: tool_result blocks must come before any other content`;
        if (typeof block.tool_use_id !== 'string' || !previousToolUses.has(block.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        answered.add(block.tool_use_id);
      } else {
        seenOther = true;
      }
    }
    if (previousToolUses.size > 0) {
      const missing = [...previousToolUses].filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    previousToolUses = toolUses;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Small helpers

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
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

/** Split by code point into `count` nearly equal pieces (no empty pieces unless the text is). */
function splitInto(text: string, count: number): string[] {
  const points = [...text];
  const n = Math.max(1, Math.min(Math.floor(count), points.length));
  const size = points.length / n;
  const pieces: string[] = [];
  for (let i = 0; i < n; i++) pieces.push(points.slice(Math.round(i * size), Math.round((i + 1) * size)).join(''));
  return pieces;
}

/** Word by word, spaces kept with the following word, as streamed models tend to. */
function splitWords(text: string): string[] {
  if (text === '') return [];
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

function sliceBytes(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += Math.max(1, size)) pieces.push(bytes.subarray(i, i + Math.max(1, size)));
  return pieces;
}
