/**
 * Adding a wire protocol is one object: `acme` below (a made-up vendor with its own tool shape,
 * conversation, error body and route) is defined here and nowhere else, handed to `createApp`
 * in `proxy.protocols`, and served by the real app against an upstream over loopback: its
 * tools narrowed, the proxy's `find_tools` declared in its shape, its search round read by its
 * codec, its refusals in its error shape. No file under src/ names it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/hono/index.js';
import { openAIUpstream, PROTOCOLS } from '../../src/hono/proxy/protocols/index.js';
import type { ProxyProtocol } from '../../src/hono/proxy/proxy-protocol.js';
import { ProxyRequestError } from '../../src/hono/proxy/request-error.js';
import type { CallResult, ModelCall } from '../../src/hono/proxy/round-codec.js';
import { ToolRegistry } from '../../src/index.js';
import { wideToolSet } from '../support/wide-tool-set.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const turnsOf = (body: Readonly<Json>): Json[] => (Array.isArray(body.turns) ? body.turns.filter(isObject) : []);
const callsOf = (answer: Readonly<Json>): ModelCall[] =>
  (Array.isArray(answer.calls) ? answer.calls.filter(isObject) : []).map((call) => ({
    id: String(call.id ?? ''),
    name: String(call.tool ?? ''),
    args: JSON.stringify(call.input ?? {}),
  }));

/**
 * Acme: `POST /v1/acme/generate` with `{ turns: [{ from, text, calls? }], tools: [{ tool, about, input }] }`,
 * answering `{ text, calls: [{ id, tool, input }], spent }`; errors are `{ failure: { status, message } }`.
 * It shares the OpenAI-compatible upstream (a vendor of its own would add its base URL setting).
 */
const acme: ProxyProtocol = {
  name: 'acme',
  route: '/v1/acme/generate',
  upstream: openAIUpstream,
  upstreamPath: '/acme/generate',
  dialect: {
    tool(entry, index) {
      if (!isObject(entry) || typeof entry.tool !== 'string' || entry.tool === '')
        throw new ProxyRequestError(400, `tools[${index}] has no tool name`, `tools[${index}].tool`);
      const schema = {
        name: entry.tool,
        description: typeof entry.about === 'string' ? entry.about : '',
        parameters: isObject(entry.input) ? entry.input : {},
      };
      return { name: entry.tool, selectable: true, deferred: false, schema, cacheControl: undefined };
    },
    toolChoice: (body) =>
      typeof body.must_use === 'string' ? { kind: 'named', names: [body.must_use], required: true } : { kind: 'auto' },
    calledTools: (body) => new Set(turnsOf(body).flatMap((turn) => callsOf(turn).map((call) => call.name))),
    conversationKey: 'turns',
    context(body) {
      const turns = turnsOf(body);
      const users = turns.filter((turn) => turn.from === 'user').map((turn) => String(turn.text ?? ''));
      const conversation = turns.map((turn) => ({
        role: turn.from === 'user' ? ('user' as const) : ('assistant' as const),
        content: String(turn.text ?? ''),
      }));
      return {
        query: users.at(-1),
        firstQuery: users[0],
        turn: 1 + turns.filter((turn) => turn.from !== 'user').length,
        conversation,
      };
    },
  },
  codec: {
    calls: callsOf,
    turn: (answer) => [JSON.stringify({ from: 'model', text: answer.text ?? '', calls: answer.calls ?? [] })],
    usage: (answer) => answer.spent,
    results: (results: readonly CallResult[]) =>
      results.map((result) => JSON.stringify({ from: 'tool', id: result.call.id, text: result.content })),
    final: (answer, calls, _earlier, usage) => ({
      ...answer,
      calls: calls.map((call) => ({ id: call.id, tool: call.name, input: JSON.parse(call.args) })),
      spent: usage,
    }),
    stream() {
      throw new Error('acme does not stream');
    },
  },
  edits: {
    rewriteCalls: () => undefined,
    append: (request, entries) => {
      const span = request.conversationSpan;
      if (!span || entries.length === 0) return undefined;
      return { start: span.end - 1, end: span.end - 1, text: `,${entries.join(',')}` };
    },
    tail: () => ({ entries: [] }),
  },
  errorBody: (status, message) => ({ failure: { status, message } }),
  errorEvent: (type, message) => `event: failure\ndata: ${JSON.stringify({ type, message })}\n\n`,
  toolEntry: (tool) => ({ tool: tool.name, about: tool.description, input: tool.parameters }),
  cache: {
    prefixCached: () => false,
    conversationCached: () => true,
    cachesTail: () => false,
    movesBreakpoints: false,
  },
  breakpoints: () => undefined,
  canContinue: () => true,
  skip: () => undefined,
};

interface Received {
  readonly path: string;
  readonly body: Json;
}

let received: Received[] = [];
let upstream: { readonly baseURL: string; close(): Promise<void> };

beforeAll(async () => {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ text: 'Done.', calls: [], spent: 7 }));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  upstream = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((closed) => server.close(() => closed())),
  };
});
afterAll(async () => {
  await upstream?.close();
});

const TOOLS = wideToolSet();

function app() {
  return createApp({
    registry: new ToolRegistry(),
    proxy: { auth: 'passthrough', openaiBaseURL: upstream.baseURL, protocols: [...PROTOCOLS, acme] },
  });
}

function post(body: unknown, headers: Record<string, string> = {}) {
  received = [];
  return app().request('/v1/acme/generate', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer client-key',
      'x-loopctl-selector': 'bm25',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const acmeBody = {
  model: 'acme-1',
  turns: [{ from: 'user', text: 'Create an issue, send an email and list the files of the project' }],
  tools: TOOLS.map((tool) => ({ tool: tool.name, about: tool.description, input: tool.parameters })),
};

describe('a protocol added as one object', () => {
  it('narrows its tools and forwards the rest of its body as the client sent it', async () => {
    const response = await post(acmeBody, { 'x-loopctl-k': '3', 'x-loopctl-policy': 'narrow' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: 'Done.', calls: [], spent: 7 });
    expect(response.headers.get('x-loopctl-registered')).toBe(String(TOOLS.length));
    expect(response.headers.get('x-loopctl-advertised')).toBe('3');
    expect(received).toHaveLength(1);
    const sent = received[0] as Received;
    expect(sent.path).toBe('/v1/acme/generate');
    expect(sent.body.turns).toEqual(acmeBody.turns);
    expect(sent.body.model).toBe('acme-1');
    const names = (sent.body.tools as Json[]).map((entry) => entry.tool);
    expect(names).toHaveLength(3);
    for (const name of names) expect(TOOLS.some((tool) => tool.name === name)).toBe(true);
  });

  it('declares the proxy search tool in its own tool shape, and its codec reads the round', async () => {
    const response = await post(acmeBody, { 'x-loopctl-k': '3', 'x-loopctl-policy': 'per-message' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-loopctl-search-rounds')).toBe('1');
    expect(await response.json()).toEqual({ text: 'Done.', calls: [], spent: 7 });
    const tools = (received[0] as Received).body.tools as Json[];
    expect(tools).toHaveLength(4);
    expect(tools[0]).toMatchObject({ tool: 'find_tools', input: { required: ['query'] } });
  });

  it('refuses in its own error shape', async () => {
    const unnamed = await post({ ...acmeBody, tools: [{ about: 'no name' }] });
    expect(unnamed.status).toBe(400);
    expect(await unnamed.json()).toEqual({ failure: { status: 400, message: 'tools[0] has no tool name' } });
    received = [];
    const typed = await app().request('/v1/acme/generate', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(typed.status).toBe(415);
    expect(await typed.json()).toMatchObject({ failure: { status: 415 } });
    expect(received).toHaveLength(0);
  });

  it('leaves the built-in protocols as they were', async () => {
    const response = await app().request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});
