/**
 * The proxy's upstream for tests: the scripted model server (real OpenAI and Anthropic wire
 * protocols over loopback) answering by markers in the request (`[[scenario:…]]`), plus a
 * control endpoint reporting exactly what the upstream received, so workerd tests can check
 * it over HTTP as Node tests do.
 *
 * Scenarios: `tool` (a weather tool call), `rate-limit` (429 with `Retry-After: 7`), `hang`
 * (never answers), `slow-stream` (text streamed over ~3 s), default (a short text answer).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest, ScriptedModelServer, ScriptedReply } from '../support/scripted-model-server.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';

/** What the control endpoint reports about one upstream request. */
export interface UpstreamRequestInfo {
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body exactly as received (UTF-8), and its bytes as base64. */
  rawBody: string;
  rawBase64: string;
  outcome: string | null;
  /** Tool names in the order the upstream saw them. */
  tools: string[];
}

/** A running upstream fixture. */
export interface UpstreamFixture {
  readonly server: ScriptedModelServer;
  /** `…/v1`: PROXY_OPENAI_BASE_URL. */
  readonly openAIBaseURL: string;
  /** The origin: PROXY_ANTHROPIC_BASE_URL. */
  readonly anthropicBaseURL: string;
  /** `GET {controlURL}/requests?id=…[&settled=1]` → {@link UpstreamRequestInfo}[]. */
  readonly controlURL: string;
  /** A loopback URL where nothing listens. */
  readonly deadURL: string;
  close(): Promise<void>;
}

const marker = (text: string, name: string): string | null => new RegExp(`\\[\\[${name}:([\\w-]+)\\]\\]`).exec(text)?.[1] ?? null;

function reply(request: RecordedRequest): ScriptedReply {
  const scenario = marker(request.rawBody, 'scenario') ?? 'text';
  switch (scenario) {
    case 'tool':
      return { toolCalls: [{ name: 'get_current_weather', arguments: { city: 'Oslo' } }], usage: { inputTokens: 30, outputTokens: 12 } };
    case 'rate-limit':
      return { kind: 'error', status: 429, message: 'Rate limit reached for requests', headers: { 'retry-after': '7', 'x-ratelimit-remaining-requests': '0' } };
    case 'hang':
      return { kind: 'hang' };
    case 'slow-stream':
      return { text: 'one two three four five six seven eight nine ten', chunkDelayMs: 300 };
    default:
      return { text: 'Hello from the upstream.', usage: { inputTokens: 12, outputTokens: 5 } };
  }
}

function toolNames(request: RecordedRequest): string[] {
  const tools = (request.json as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.map((tool: { name?: unknown; function?: { name?: unknown } }) => String(tool.function?.name ?? tool.name));
}

/** The report for one request. */
export function describeRequest(request: RecordedRequest): UpstreamRequestInfo {
  return {
    index: request.index,
    method: request.method,
    path: request.path,
    headers: { ...request.headers },
    rawBody: request.rawBody,
    rawBase64: Buffer.from(request.rawBytes).toString('base64'),
    outcome: request.outcome ?? null,
    tools: toolNames(request),
  };
}

/**
 * Start the upstream and its control endpoint on loopback.
 *
 * @example
 * const upstream = await startUpstreamFixture()
 * // PROXY_OPENAI_BASE_URL = upstream.openAIBaseURL
 */
export async function startUpstreamFixture(): Promise<UpstreamFixture> {
  const server = await startScriptedModelServer({ script: reply });
  const control = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (url.pathname !== '/requests') {
      res.writeHead(404).end();
      return;
    }
    const id = url.searchParams.get('id');
    const matching = server.requests.filter((request) => id === null || marker(request.rawBody, 'id') === id);
    if (url.searchParams.get('settled') === '1') {
      await Promise.race([Promise.all(matching.map((request) => request.settled)), new Promise((done) => setTimeout(done, 10_000))]);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(matching.map(describeRequest)));
  });
  await new Promise<void>((done) => control.listen(0, '127.0.0.1', done));
  const dead = createServer();
  await new Promise<void>((done) => dead.listen(0, '127.0.0.1', done));
  const deadPort = (dead.address() as AddressInfo).port;
  await new Promise<void>((done) => dead.close(() => done()));
  return {
    server,
    openAIBaseURL: server.openAIBaseURL,
    anthropicBaseURL: server.anthropicBaseURL,
    controlURL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    deadURL: `http://127.0.0.1:${deadPort}`,
    async close() {
      control.closeAllConnections();
      await new Promise<void>((done) => control.close(() => done()));
      await server.close();
    },
  };
}
