/**
 * The worker's HTTP contract as a framework-neutral list of async checks. Node (vitest),
 * workerd (vitest-pool-workers) and Deno (`Deno.test`) each start the worker their own way
 * and wrap every check; the checks only speak HTTP (plus the model fixture's control URL).
 *
 * Plain TypeScript with web APIs only: no vitest, no node:, no Deno.
 */
import { assert, CheckFailure, equal } from '../support/check-assertions.js';

/** Where one configuration of the worker answers. */
export interface Endpoint {
  readonly baseURL: string;
  /** How to reach it; default the global fetch (workerd passes `SELF.fetch`). */
  readonly fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /**
   * Raw HTTP/1.1 over a socket, for requests `fetch` will not send (a lying or malformed
   * `Content-Length`). Absent where the runtime has no socket to the worker (the workers pool).
   */
  readonly raw?: (exchange: RawExchange) => Promise<RawReply>;
}

/** One raw HTTP/1.1 request: the head without `Host`/`Connection` (added) and the blank line. */
export interface RawExchange {
  readonly head: string;
  readonly body?: string;
  /** Give up waiting for an answer after this long. Default 5000 ms. */
  readonly timeoutMs?: number;
}

/** What came back over the socket. */
export interface RawReply {
  /** 0 when no status line arrived. */
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** No complete answer before the timeout. */
  readonly timedOut: boolean;
}

/** The worker under test, in three configurations, and the scripted model behind it. */
export interface SuiteTarget {
  /** Token set, model = the scripted model, CORS allows {@link SuiteTarget.corsOrigin}. */
  readonly api: Endpoint;
  readonly token: string;
  /** The model API key the worker was given (must never appear in a response). */
  readonly modelApiKey: string;
  readonly corsOrigin: string;
  /** Same worker, no token configured. */
  readonly unconfigured: Endpoint;
  /** Token set, but the model base URL refuses connections. CORS closed. */
  readonly noModel: Endpoint;
  /** The model fixture's control endpoint (`GET /requests`). */
  readonly modelControlURL: string;
  /** Whether `api` has an embedder configured. */
  readonly embedding: boolean;
  /**
   * The runtime refuses a malformed `Content-Length` itself, before the worker runs (workerd's
   * HTTP layer answers a plain 500, Deno's server a bare 400; Cloudflare's edge refuses such
   * requests before any worker). Node lets the app answer in its JSON shape.
   */
  readonly runtimeRefusesBadLength?: boolean;
  /** Whether this runtime's fetch can send a streamed (chunked) request body. Default true. */
  readonly streamingUploads?: boolean;
}

/**
 * Parse raw HTTP/1.1 response text (as far as it arrived): status, headers, body, and whether
 * the body is complete (by `Content-Length` or the chunked terminator).
 */
export function parseRawReply(text: string, timedOut: boolean): RawReply & { complete: boolean } {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, headers: {}, body: '', timedOut, complete: false };
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  let complete = false;
  if (headers['content-length'] !== undefined)
    complete = new TextEncoder().encode(body).byteLength >= Number(headers['content-length']);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    complete = /(^|\r\n)0\r\n\r\n$/.test(body);
    if (complete) body = dechunk(body);
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, timedOut, complete };
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  while (true) {
    const line = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** One check of the suite. */
export interface Check {
  readonly name: string;
  run(t: SuiteTarget): Promise<void>;
}

// ---------------------------------------------------------------------------------------
// HTTP helpers.

type Init = RequestInit & { auth?: string | false; json?: unknown };

function call(endpoint: Endpoint, t: SuiteTarget, path: string, init: Init = {}): Promise<Response> {
  const { auth, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  const token = auth === undefined ? t.token : auth;
  if (token !== false) headers.set('authorization', `Bearer ${token}`);
  if (json !== undefined) headers.set('content-type', 'application/json');
  const fetcher = endpoint.fetch ?? ((input: string, options?: RequestInit) => fetch(input, options));
  return fetcher(`${endpoint.baseURL}${path}`, {
    ...rest,
    headers,
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
}

const post = (t: SuiteTarget, path: string, json: unknown, init: Init = {}): Promise<Response> =>
  call(t.api, t, path, { method: 'POST', json, ...init });

interface ErrorShape {
  error: { code: string; message: string; field?: string };
}

/** Checks status and the error body's shape: exactly `{ error: { code, message[, field] } }`. */
async function expectError(response: Response, status: number, code: string, field?: string): Promise<ErrorShape> {
  const text = await response.text();
  equal(response.status, status, `status (body ${text.slice(0, 200)})`);
  assert(
    /^application\/json/.test(response.headers.get('content-type') ?? ''),
    `error content-type is JSON, got ${response.headers.get('content-type')}`,
  );
  const body = JSON.parse(text) as ErrorShape;
  assert(
    body && typeof body === 'object' && Object.keys(body).join() === 'error',
    `error body has only "error": ${text}`,
  );
  const keys = Object.keys(body.error).sort().join();
  assert(keys === 'code,message' || keys === 'code,field,message', `error fields are code/message/field: ${text}`);
  equal(body.error.code, code, 'error.code');
  assert(typeof body.error.message === 'string' && body.error.message.length > 0, 'error.message is set');
  if (field !== undefined) equal(body.error.field, field, 'error.field');
  assert(!/\bat .+:\d+:\d+/.test(text) && !text.includes('stack'), `no stack trace in ${text}`);
  return body;
}

async function expectJson<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  equal(response.status, status, `status (body ${text.slice(0, 300)})`);
  return JSON.parse(text) as T;
}

/** One parsed server-sent event. */
export interface SseEvent {
  event: string;
  data: any;
}

/** Parse a complete `text/event-stream` body. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    if (frame.trim() === '') continue;
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') event = value;
      else if (name === 'data') data.push(value);
    }
    // A frame of comments only (the stream's heartbeat, `: `) dispatches nothing.
    if (data.length === 0) continue;
    events.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return events;
}

async function runEvents(t: SuiteTarget, body: unknown): Promise<{ events: SseEvent[]; text: string }> {
  const response = await post(t, '/v1/runs', body);
  const text = await response.text();
  equal(response.status, 200, `run status (body ${text.slice(0, 300)})`);
  assert((response.headers.get('content-type') ?? '').startsWith('text/event-stream'), 'run answers text/event-stream');
  const events = parseSse(text);
  for (const event of events) equal(event.data?.type, event.event, 'SSE event name matches data.type');
  return { events, text };
}

function eventsOf(events: SseEvent[], type: string): any[] {
  return events.filter((event) => event.event === type).map((event) => event.data);
}

interface ModelRequestInfo {
  index: number;
  outcome: string | null;
  id: string | null;
  tools: string[];
  hasToolResult: boolean;
  authorization: string | null;
}

async function modelRequests(t: SuiteTarget, id: string): Promise<ModelRequestInfo[]> {
  const response = await fetch(`${t.modelControlURL}/requests`);
  const all = (await response.json()) as ModelRequestInfo[];
  return all.filter((request) => request.id === id);
}

async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new CheckFailure(`timed out waiting for ${what}`);
}

let counter = 0;
const uniqueId = (): string => `r${Date.now().toString(36)}${(counter++).toString(36)}`;

const WEATHER = 'What is the weather like in Oslo right now?';

// ---------------------------------------------------------------------------------------
// The checks.

/** Every check, in a sensible order (fast ones first). */
export const CHECKS: readonly Check[] = [
  {
    name: 'GET /healthz answers 200 without auth',
    async run(t) {
      const body = await expectJson<{ status: string }>(await call(t.api, t, '/healthz', { auth: false }));
      equal(body.status, 'ok', 'status');
      equal(
        (await call(t.unconfigured, t, '/healthz', { auth: false })).status,
        200,
        'healthz without a token configured',
      );
    },
  },
  {
    name: 'unknown routes answer a JSON 404',
    async run(t) {
      await expectError(await call(t.api, t, '/nope'), 404, 'not_found');
      await expectError(await call(t.api, t, '/v1/nope'), 404, 'not_found');
    },
  },
  {
    name: '/v1 requires the bearer token (missing, wrong, other scheme → 401)',
    async run(t) {
      await expectError(await call(t.api, t, '/v1/tools', { auth: false }), 401, 'unauthorized');
      const wrong = await call(t.api, t, '/v1/tools', {
        auth: `${t.token.slice(0, -1)}${t.token.endsWith('x') ? 'y' : 'x'}`,
      });
      equal(wrong.headers.get('www-authenticate'), 'Bearer realm="loopctl"', 'WWW-Authenticate');
      await expectError(wrong, 401, 'unauthorized');
      await expectError(await call(t.api, t, '/v1/tools', { auth: 'short' }), 401, 'unauthorized');
      await expectError(await call(t.api, t, '/v1/tools', { auth: `${t.token}${t.token}` }), 401, 'unauthorized');
      const basic = await call(t.api, t, '/v1/tools', { auth: false, headers: { authorization: `Basic ${t.token}` } });
      await expectError(basic, 401, 'unauthorized');
      const select = await call(t.api, t, '/v1/select', { method: 'POST', auth: false, json: { prompt: 'x' } });
      await expectError(select, 401, 'unauthorized');
    },
  },
  {
    name: 'without LOOPCTL_TOKEN configured /v1 answers 503',
    async run(t) {
      const body = await expectError(await call(t.unconfigured, t, '/v1/tools'), 503, 'not_configured');
      equal(body.error.message, 'LOOPCTL_TOKEN is not set', 'message');
      await expectError(
        await call(t.unconfigured, t, '/v1/select', { method: 'POST', json: { prompt: 'x' } }),
        503,
        'not_configured',
      );
    },
  },
  {
    name: 'GET /v1/tools lists the registry and its generation',
    async run(t) {
      const body = await expectJson<{ tools: { name: string; description: string }[]; generation: number }>(
        await call(t.api, t, '/v1/tools'),
      );
      assert(body.tools.length >= 50, `about sixty demo tools, got ${body.tools.length}`);
      for (const tool of body.tools) {
        assert(/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name), `wire-safe name ${tool.name}`);
        assert(tool.description.length > 10, `${tool.name} has a description`);
        equal(Object.keys(tool).sort().join(), 'description,name', 'tool fields');
      }
      assert(
        body.tools.some((tool) => tool.name === 'get_current_weather'),
        'get_current_weather is listed',
      );
      assert(Number.isInteger(body.generation) && body.generation > 0, 'generation is a positive integer');
    },
  },
  {
    name: 'POST /v1/select: keyword narrows the surface and reports token figures',
    async run(t) {
      const body = await expectJson<any>(await post(t, '/v1/select', { prompt: WEATHER }));
      equal(body.selector, 'keyword', 'default selector');
      assert(body.advertised.includes('get_current_weather'), `weather tool advertised: ${body.advertised}`);
      assert(body.advertised.length < body.registered, 'fewer advertised than registered');
      equal(body.fellOpen, false, 'fellOpen');
      equal(body.reason, undefined, 'no reason when not fell open');
      assert(
        body.advertisedTokens > 0 && body.advertisedTokens < body.registryTokens,
        'advertisedTokens < registryTokens',
      );
      assert(typeof body.ms === 'number' && body.ms >= 0, 'ms');
    },
  },
  {
    name: 'POST /v1/select: bm25, keyword-ranked and static honour k',
    async run(t) {
      const bm25 = await expectJson<any>(await post(t, '/v1/select', { prompt: WEATHER, selector: 'bm25', k: 3 }));
      assert(
        bm25.advertised.length <= 3 && bm25.advertised.includes('get_current_weather'),
        `bm25 k=3: ${bm25.advertised}`,
      );
      const ranked = await expectJson<any>(
        await post(t, '/v1/select', {
          prompt: 'send an email to Ana about the invoice',
          selector: 'keyword-ranked',
          k: 2,
        }),
      );
      assert(
        ranked.advertised.length <= 2 && ranked.advertised.includes('send_email'),
        `keyword-ranked k=2: ${ranked.advertised}`,
      );
      const all = await expectJson<any>(await post(t, '/v1/select', { prompt: WEATHER, selector: 'static' }));
      equal(all.advertised.length, all.registered, 'static advertises everything');
      equal(all.advertisedTokens, all.registryTokens, 'static tokens = registry tokens');
    },
  },
  {
    name: 'POST /v1/select: says when k does not apply, and ranks the advertised tools best first',
    async run(t) {
      const prompt = 'send an email to Ana about the weather forecast';
      const keyword = await expectJson<any>(await post(t, '/v1/select', { prompt, selector: 'keyword', k: 5 }));
      assert(Array.isArray(keyword.notes), `notes: ${JSON.stringify(keyword.notes)}`);
      assert(
        keyword.notes.some((note: string) => /k does not apply to keyword/.test(note)),
        `a note that k does not apply: ${keyword.notes}`,
      );
      const plain = await expectJson<any>(await post(t, '/v1/select', { prompt, selector: 'keyword' }));
      equal(plain.notes, undefined, 'no note when no k was given');
      for (const body of [
        keyword,
        await expectJson<any>(await post(t, '/v1/select', { prompt, selector: 'bm25', k: 3 })),
      ]) {
        const label = body.selector;
        assert(Array.isArray(body.ranked), `${label}: ranked is a list`);
        equal(
          body.ranked
            .map((entry: { name: string }) => entry.name)
            .sort()
            .join(),
          [...body.advertised].sort().join(),
          `${label}: ranked lists the advertised tools`,
        );
        const scores = body.ranked.map((entry: { score?: number }) => entry.score);
        assert(
          scores.every((score: unknown) => typeof score === 'number'),
          `${label}: every tool has its score: ${scores}`,
        );
        for (let i = 1; i < scores.length; i++)
          assert(scores[i - 1] >= scores[i], `${label}: best first: ${JSON.stringify(body.ranked)}`);
        equal(body.ranked[0]?.score, Math.max(...scores), `${label}: the best first`);
      }
      const bm25 = await expectJson<any>(await post(t, '/v1/select', { prompt, selector: 'bm25', k: 3 }));
      equal(bm25.notes, undefined, 'bm25 takes k: no note');
      const all = await expectJson<any>(await post(t, '/v1/select', { prompt, selector: 'static', k: 4 }));
      assert(
        all.notes?.some((note: string) => /k does not apply to static/.test(note)),
        `static: a note that k does not apply: ${all.notes}`,
      );
      equal(all.ranked.length, all.registered, 'static: ranked lists every tool');
    },
  },
  {
    name: 'POST /v1/select: a prompt that matches nothing falls open with a reason',
    async run(t) {
      const body = await expectJson<any>(await post(t, '/v1/select', { prompt: 'zzqx vlorp', selector: 'keyword' }));
      equal(body.fellOpen, true, 'fellOpen');
      assert(typeof body.reason === 'string' && body.reason.length > 0, 'reason');
      equal(body.advertised.length, body.registered, 'full surface');
    },
  },
  {
    name: 'POST /v1/select: embedding ranks by meaning, or says it is not configured',
    async run(t) {
      const response = await post(t, '/v1/select', {
        prompt: 'Will I need an umbrella in Oslo? What is the weather forecast?',
        selector: 'embedding',
        k: 5,
      });
      if (!t.embedding) {
        await expectError(response, 503, 'selector_unavailable');
        return;
      }
      const body = await expectJson<any>(response);
      equal(body.fellOpen, false, `fellOpen (reason ${body.reason})`);
      equal(body.advertised.length, 5, 'k=5 advertised');
      assert(
        body.advertised.some((name: string) => name.includes('weather')),
        `a weather tool advertised: ${body.advertised}`,
      );
    },
  },
  {
    name: 'POST /v1/select: hybrid blends BM25 with the embedding, or says it is not configured',
    async run(t) {
      const response = await post(t, '/v1/select', { prompt: 'Email Ana the May invoice', selector: 'hybrid', k: 3 });
      if (!t.embedding) {
        await expectError(response, 503, 'selector_unavailable');
        return;
      }
      const body = await expectJson<any>(response);
      equal(body.selector, 'hybrid', 'selector');
      equal(body.fellOpen, false, `fellOpen (reason ${body.reason})`);
      assert(
        body.advertised.length === 3 && body.advertised.some((name: string) => name.includes('email')),
        `hybrid k=3: ${body.advertised}`,
      );
    },
  },
  {
    name: 'bad input: malformed JSON, wrong media type, non-object bodies → 400/415',
    async run(t) {
      await expectError(
        await call(t.api, t, '/v1/select', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"prompt":',
        }),
        400,
        'invalid_json',
      );
      await expectError(
        await call(t.api, t, '/v1/select', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '',
        }),
        400,
        'invalid_json',
      );
      await expectError(
        await call(t.api, t, '/v1/select', {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: '{"prompt":"x"}',
        }),
        415,
        'unsupported_media_type',
      );
      await expectError(await post(t, '/v1/select', ['prompt']), 400, 'invalid_body');
      await expectError(await post(t, '/v1/runs', 'hello'), 400, 'invalid_body');
    },
  },
  {
    name: 'bad input: /v1/select fields are checked and named',
    async run(t) {
      await expectError(await post(t, '/v1/select', {}), 400, 'invalid_field', 'prompt');
      await expectError(await post(t, '/v1/select', { prompt: 42 }), 400, 'invalid_field', 'prompt');
      await expectError(await post(t, '/v1/select', { prompt: '   ' }), 400, 'invalid_field', 'prompt');
      await expectError(
        await post(t, '/v1/select', { prompt: 'x', selector: 'telepathy' }),
        400,
        'invalid_field',
        'selector',
      );
      await expectError(await post(t, '/v1/select', { prompt: 'x', selector: 7 }), 400, 'invalid_field', 'selector');
      for (const k of [0, 65, 1.5, '3', -1, null]) {
        await expectError(await post(t, '/v1/select', { prompt: 'x', selector: 'bm25', k }), 400, 'invalid_field', 'k');
      }
    },
  },
  {
    name: 'bad input: /v1/runs fields are checked and named',
    async run(t) {
      await expectError(await post(t, '/v1/runs', {}), 400, 'invalid_field', 'prompt');
      await expectError(
        await post(t, '/v1/runs', { prompt: 'x', messages: [{ role: 'user', content: 'x' }] }),
        400,
        'invalid_field',
        'prompt',
      );
      await expectError(
        await post(t, '/v1/runs', { prompt: 'x', constraint: 'bogus' }),
        400,
        'invalid_field',
        'constraint',
      );
      await expectError(await post(t, '/v1/runs', { prompt: 'x', constraint: 1 }), 400, 'invalid_field', 'constraint');
      for (const maxTurns of [0, 21, 2.5, '3']) {
        await expectError(await post(t, '/v1/runs', { prompt: 'x', maxTurns }), 400, 'invalid_field', 'maxTurns');
      }
      await expectError(await post(t, '/v1/runs', { prompt: 'x', selector: 'nope' }), 400, 'invalid_field', 'selector');
      await expectError(await post(t, '/v1/runs', { prompt: 'x', k: 100 }), 400, 'invalid_field', 'k');
      await expectError(await post(t, '/v1/runs', { messages: 'hi' }), 400, 'invalid_field', 'messages');
      await expectError(await post(t, '/v1/runs', { messages: [] }), 400, 'invalid_field', 'messages');
      await expectError(
        await post(t, '/v1/runs', { messages: [{ role: 'wizard', content: 'x' }] }),
        400,
        'invalid_field',
        'messages[0].role',
      );
      await expectError(
        await post(t, '/v1/runs', { messages: [{ role: 'user', content: 5 }] }),
        400,
        'invalid_field',
        'messages[0].content',
      );
      await expectError(
        await post(t, '/v1/runs', { messages: [{ role: 'system', content: 'only a system message' }] }),
        400,
        'invalid_field',
        'messages',
      );
    },
  },
  {
    name: 'bodies over 256 KiB → 413 (declared Content-Length and streamed size)',
    async run(t) {
      const big = JSON.stringify({ prompt: 'x'.repeat(300 * 1024) });
      const declared = await call(t.api, t, '/v1/select', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: big,
      });
      await expectError(declared, 413, 'body_too_large');
      if (t.streamingUploads === false) return;
      const bytes = new TextEncoder().encode(big);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(sent, sent + 16 * 1024));
          sent += 16 * 1024;
        },
      });
      const streamed = await call(t.api, t, '/v1/select', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      await expectError(streamed, 413, 'body_too_large');
      // Just under the limit still works.
      const fits = await post(t, '/v1/select', { prompt: `weather ${'x '.repeat(12_000)}` });
      equal(fits.status, 200, 'a large but acceptable body');
      await fits.body?.cancel();
    },
  },
  {
    name: 'odd HTTP: a malformed or oversized Content-Length is refused as JSON, from the header alone',
    async run(t) {
      const raw = t.api.raw;
      if (!raw) return; // No socket to the worker here (the workers pool); the other runtimes cover it.
      const head = (length: string) =>
        `POST /v1/select HTTP/1.1\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: ${length}`;
      for (const length of t.runtimeRefusesBadLength ? [] : ['abc', '-1', '5, 5']) {
        const bad = await raw({ head: head(length), body: '{"prompt":"weather"}' });
        equal(bad.timedOut, false, `Content-Length: ${length} answered`);
        equal(bad.status, 400, `Content-Length: ${length} status (${bad.body.slice(0, 200)})`);
        assert(
          /^application\/json/.test(bad.headers['content-type'] ?? ''),
          `JSON error, got ${bad.headers['content-type']}`,
        );
        assert(typeof JSON.parse(bad.body).error?.code === 'string', `error shape: ${bad.body}`);
      }
      // 300 KiB declared, 20 bytes sent: the answer must not wait for the rest.
      const declared = await raw({ head: head(String(300 * 1024)), body: '{"prompt":"weather",', timeoutMs: 4000 });
      equal(declared.timedOut, false, 'an over-limit declared length is answered before the body arrives');
      equal(declared.status, 413, `declared status (${declared.body.slice(0, 200)})`);
      equal(JSON.parse(declared.body).error?.code, 'body_too_large', 'error.code');
    },
  },
  {
    name: 'odd HTTP: every refusal is the JSON error shape (OPTIONS /, wrong methods)',
    async run(t) {
      const root = await call(t.api, t, '/', { method: 'OPTIONS', auth: false });
      const rootStatus = root.status;
      assert(rootStatus === 404 || rootStatus === 405, `OPTIONS / status ${rootStatus}`);
      await expectError(root, rootStatus, rootStatus === 404 ? 'not_found' : 'method_not_allowed');
      // (With CORS configured, OPTIONS on an API route is a preflight: 204. noModel has CORS closed.)
      const health = await call(t.noModel, t, '/healthz', { method: 'OPTIONS', auth: false });
      equal(health.headers.get('allow'), 'GET, HEAD', 'Allow on 405');
      await expectError(health, 405, 'method_not_allowed');
      await expectError(await call(t.api, t, '/v1/tools', { method: 'DELETE' }), 405, 'method_not_allowed');
      await expectError(await call(t.api, t, '/v1/select', { method: 'GET' }), 405, 'method_not_allowed');
      await expectError(
        await call(t.api, t, '/v1/runs', { method: 'PUT', json: { prompt: 'x' } }),
        405,
        'method_not_allowed',
      );
    },
  },
  {
    name: 'odd HTTP: only application/json and +json bodies are accepted',
    async run(t) {
      const send = (type: string | undefined) =>
        call(t.api, t, '/v1/select', {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body: JSON.stringify({ prompt: WEATHER }),
        });
      for (const type of [
        'application/json-patch+xml',
        'application/jsonx',
        'text/json',
        'application/x-www-form-urlencoded',
      ]) {
        await expectError(await send(type), 415, 'unsupported_media_type');
      }
      for (const type of [
        'application/json',
        'application/json; charset=utf-8',
        'Application/JSON',
        'application/merge-patch+json',
        'application/vnd.api+json',
      ]) {
        const ok = await send(type);
        equal(ok.status, 200, `${type} accepted`);
        await ok.body?.cancel();
      }
    },
  },
  {
    name: 'a prompt at the 32,000-character cap always fits the 256 KiB body limit',
    async run(t) {
      // The worst case for bytes per character: a control character JSON-escapes to 6 bytes.
      const atCap = `weather ${'\u0001'.repeat(32_000 - 8)}`;
      const ok = await post(t, '/v1/select', { prompt: atCap, selector: 'bm25' });
      equal(ok.status, 200, 'a prompt of exactly 32,000 characters');
      await ok.body?.cancel();
      await expectError(
        await post(t, '/v1/select', { prompt: `${atCap}x`, selector: 'bm25' }),
        400,
        'invalid_field',
        'prompt',
      );
    },
  },
  {
    name: 'POST /v1/runs streams a whole run with a tool call as SSE',
    async run(t) {
      const id = uniqueId();
      const { events, text } = await runEvents(t, {
        prompt: `[[scenario:tool]] [[id:${id}]] ${WEATHER}`,
        selector: 'bm25',
        k: 4,
        maxTurns: 4,
      });
      const types = events.map((event) => event.event);
      equal(types[0], 'run_start', 'first event');
      equal(types.at(-1), 'done', 'last event');
      for (const type of ['turn_start', 'selection', 'request', 'tool_call', 'tool_result', 'text', 'usage']) {
        assert(types.includes(type), `has a ${type} event: ${types.join(',')}`);
      }
      const [selection] = eventsOf(events, 'selection');
      equal(selection.selector, 'bm25', 'selection.selector');
      assert(
        selection.advertised.length <= 4 && selection.advertised.includes('get_current_weather'),
        `advertised ${selection.advertised}`,
      );
      const [call] = eventsOf(events, 'tool_call');
      equal(call.call.name, 'get_current_weather', 'tool call name');
      equal(call.advertised, true, 'the call was advertised');
      const [result] = eventsOf(events, 'tool_result');
      equal(result.result.isError, false, 'tool result ok');
      assert(result.result.content.includes('Oslo'), 'tool result mentions Oslo');
      const done = eventsOf(events, 'done')[0];
      equal(done.stopReason, 'stop', 'stopReason');
      equal(done.turns, 2, 'turns');
      equal(done.text, 'It is mild and overcast in Oslo.', 'final text');
      // The model saw exactly the advertised tools, and the API key; the client saw neither secret.
      const seen = await modelRequests(t, id);
      equal(seen.length, 2, 'model requests');
      equal(seen[0]?.tools.join(), selection.advertised.join(), 'wire tools = advertised');
      equal(seen[1]?.hasToolResult, true, 'second request carries the tool result');
      equal(seen[0]?.authorization, `Bearer ${t.modelApiKey}`, 'the model got the API key');
      assert(!text.includes(t.modelApiKey) && !text.includes(t.token), 'no secret in the stream');
    },
  },
  {
    name: 'POST /v1/runs accepts messages',
    async run(t) {
      const { events } = await runEvents(t, {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: '[[scenario:text]] Say hello.' },
        ],
        selector: 'static',
      });
      const done = eventsOf(events, 'done')[0];
      equal(done.stopReason, 'stop', 'stopReason');
      equal(done.text, 'Hello from the scripted model.', 'text');
      equal(
        eventsOf(events, 'text')
          .map((event) => event.delta)
          .join(''),
        done.text,
        'text deltas add up',
      );
    },
  },
  {
    name: 'a failing tool is an error result in the stream, and the run goes on',
    async run(t) {
      const { events } = await runEvents(t, {
        prompt: '[[scenario:fail-tool]] Fetch https://down.invalid/ and summarise the web page',
        selector: 'static',
      });
      const [result] = eventsOf(events, 'tool_result');
      equal(result.result.name, 'fetch_url', 'tool');
      equal(result.result.isError, true, 'isError');
      equal(eventsOf(events, 'done')[0].stopReason, 'stop', 'the run still finishes');
    },
  },
  {
    name: 'a model failing mid-run yields an error event, not a dropped connection',
    async run(t) {
      const cut = await runEvents(t, { prompt: '[[scenario:model-error]] Tell me a story' });
      const [error] = eventsOf(cut.events, 'error');
      assert(error && typeof error.code === 'string' && typeof error.message === 'string', 'an error event');
      equal(eventsOf(cut.events, 'done')[0].stopReason, 'error', 'stopReason');
      const rejected = await runEvents(t, { prompt: '[[scenario:http-error]] Tell me a story' });
      const [httpError] = eventsOf(rejected.events, 'error');
      equal(httpError?.code, 'http_400', 'error code');
      equal(eventsOf(rejected.events, 'done')[0].stopReason, 'error', 'stopReason');
      assert(!rejected.text.includes(t.modelApiKey), 'no API key in the stream');
    },
  },
  {
    name: 'no model reachable → /v1/runs answers 503, /v1/select still works',
    async run(t) {
      const body = await expectError(
        await call(t.noModel, t, '/v1/runs', { method: 'POST', json: { prompt: 'hello' } }),
        503,
        'model_unavailable',
      );
      assert(!body.error.message.includes('127.0.0.1'), 'the message names the setting, not the address');
      const select = await expectJson<any>(
        await call(t.noModel, t, '/v1/select', { method: 'POST', json: { prompt: WEATHER } }),
      );
      assert(select.advertised.includes('get_current_weather'), 'select works without a model');
    },
  },
  {
    name: 'a client that disconnects aborts the run and its model request',
    async run(t) {
      const id = uniqueId();
      const controller = new AbortController();
      const response = await post(
        t,
        '/v1/runs',
        { prompt: `[[scenario:hang]] [[id:${id}]] think hard` },
        { signal: controller.signal },
      );
      equal(response.status, 200, 'status');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let seen = '';
      while (!seen.includes('event: text')) {
        const { done, value } = await reader.read();
        assert(!done, `stream ended before any text: ${seen}`);
        seen += decoder.decode(value, { stream: true });
      }
      controller.abort();
      await reader.cancel().catch(() => undefined);
      await eventually('the model request to be closed by the worker', async () => {
        const [request] = await modelRequests(t, id);
        return request?.outcome === 'client-closed';
      });
    },
  },
  {
    name: 'a client that leaves while the model is thinking aborts that model request at once and dispatches nothing more',
    async run(t) {
      const id = uniqueId();
      const controller = new AbortController();
      const response = await post(
        t,
        '/v1/runs',
        { prompt: `[[scenario:slow-tool]] [[id:${id}]] ${WEATHER}`, selector: 'static', maxTurns: 5 },
        { signal: controller.signal },
      );
      equal(response.status, 200, 'status');
      const reader = response.body!.getReader();
      // Read until turn 2's model request is at the model, then leave while it is unanswered.
      const pump = (async () => {
        try {
          while (!(await reader.read()).done);
        } catch {
          // aborted below
        }
      })();
      await eventually('turn 2 to reach the model', async () => (await modelRequests(t, id)).length >= 2);
      const before = await modelRequests(t, id);
      equal(before[1]?.outcome, null, 'turn 2 is still unanswered when the client leaves');
      controller.abort();
      await reader.cancel().catch(() => undefined);
      await pump;
      // The worker closes its model connection itself: the model never got to answer it.
      await eventually(
        "the worker to close turn 2's model request",
        async () => (await modelRequests(t, id))[1]?.outcome !== null,
        10_000,
      );
      const after = await modelRequests(t, id);
      equal(after[1]?.outcome, 'client-closed', 'turn 2 model request outcome');
      // Had turn 2 been answered, its tool would run and turn 3 would ask the model at once.
      await new Promise((resolve) => setTimeout(resolve, 300));
      equal((await modelRequests(t, id)).length, 2, 'model requests (no turn 3)');
    },
  },
  {
    name: 'CORS: allowed origin gets headers, others and closed configurations get none',
    async run(t) {
      const preflight = (endpoint: Endpoint, origin: string): Promise<Response> =>
        call(endpoint, t, '/v1/select', {
          method: 'OPTIONS',
          auth: false,
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type',
          },
        });
      const allowed = await preflight(t.api, t.corsOrigin);
      assert(allowed.status === 204 || allowed.status === 200, `preflight status ${allowed.status}`);
      equal(allowed.headers.get('access-control-allow-origin'), t.corsOrigin, 'allow-origin');
      assert(
        /authorization/i.test(allowed.headers.get('access-control-allow-headers') ?? ''),
        'allow-headers has Authorization',
      );
      await allowed.body?.cancel();
      const evil = await preflight(t.api, 'https://evil.example');
      equal(evil.headers.get('access-control-allow-origin'), null, 'no allow-origin for another origin');
      await evil.body?.cancel();
      const closed = await preflight(t.noModel, t.corsOrigin);
      equal(closed.headers.get('access-control-allow-origin'), null, 'closed by default');
      await closed.body?.cancel();
      const get = await call(t.api, t, '/v1/tools', { headers: { origin: t.corsOrigin } });
      equal(get.headers.get('access-control-allow-origin'), t.corsOrigin, 'allow-origin on the actual request');
      await get.body?.cancel();
    },
  },
];
