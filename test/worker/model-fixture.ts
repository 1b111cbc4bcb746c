/**
 * The model side of the worker suite: the scripted model server answering by scenario
 * markers in the run prompt (`[[scenario:tool]]`), plus a tiny control endpoint that reports
 * what the model received and how each exchange ended. Scenario markers (not a reply queue)
 * let the suite drive the model from another process or runtime (workerd, Deno) over HTTP.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest, ScriptedModelServer, ScriptedReply } from '../support/scripted-model-server.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';
import { holdUnreachablePort } from '../support/unreachable-port.js';

/** What the control endpoint reports about one model request. */
export interface ModelRequestInfo {
  index: number;
  path: string;
  outcome: string | null;
  scenario: string | null;
  /** The `[[id:…]]` marker of the run, if any. */
  id: string | null;
  /** Tool names the request advertised. */
  tools: string[];
  /** Whether the request carried a tool result. */
  hasToolResult: boolean;
  authorization: string | null;
}

/** A running model fixture. */
export interface ModelFixture {
  readonly server: ScriptedModelServer;
  /** `…/v1`: the worker's `MODEL_BASE_URL`. */
  readonly baseURL: string;
  /** `GET {controlURL}/requests` → {@link ModelRequestInfo}[]. */
  readonly controlURL: string;
  /** `…/v1` on a loopback port the fixture holds and that resets every connection (no model there). */
  readonly deadBaseURL: string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function messages(request: RecordedRequest): Json[] {
  const json = request.json as Json | undefined;
  return Array.isArray(json?.messages) ? (json.messages as Json[]) : [];
}

function userText(request: RecordedRequest): string {
  return messages(request)
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');
}

function marker(text: string, name: string): string | null {
  return new RegExp(`\\[\\[${name}:([\\w-]+)\\]\\]`).exec(text)?.[1] ?? null;
}

function hasToolResult(request: RecordedRequest): boolean {
  return messages(request).some((message) => message.role === 'tool');
}

function toolNames(request: RecordedRequest): string[] {
  const tools = (request.json as Json | undefined)?.tools;
  return Array.isArray(tools)
    ? tools.map((tool) => String((tool as { function?: { name?: unknown } }).function?.name))
    : [];
}

/** How long the `slow-tool` scenario's later requests take to answer. */
export const SLOW_MS = 3000;

/** The scripted model's behaviour, keyed by scenario. */
export function scenarioReply(request: RecordedRequest): ScriptedReply {
  const scenario = marker(userText(request), 'scenario') ?? 'text';
  const answered = hasToolResult(request);
  switch (scenario) {
    case 'tool':
      return answered
        ? { text: 'It is mild and overcast in Oslo.', usage: { inputTokens: 40, outputTokens: 9 } }
        : {
            toolCalls: [{ id: 'call_weather', name: 'get_current_weather', arguments: { city: 'Oslo' } }],
            usage: { inputTokens: 30, outputTokens: 12 },
          };
    case 'fail-tool':
      return answered
        ? { text: 'That site could not be reached.' }
        : { toolCalls: [{ id: 'call_fetch', name: 'fetch_url', arguments: { url: 'https://down.invalid/' } }] };
    case 'model-error':
      // A connection cut mid-stream, after a little text.
      return { text: 'Partial answer that never', textChunks: 4, interrupt: { afterEvents: 3, action: 'close' } };
    case 'http-error':
      return { kind: 'error', status: 400, message: 'scripted: this model rejects the request' };
    case 'slow-tool':
      // Turn 1 calls a tool at once; every later request takes a while to answer with another
      // call, so a client can leave while the worker waits on the model (nothing is being written).
      return answered
        ? {
            toolCalls: [{ id: `call_${request.index}`, name: 'get_current_weather', arguments: { city: 'Bergen' } }],
            delayMs: SLOW_MS,
          }
        : { toolCalls: [{ id: 'call_first', name: 'get_current_weather', arguments: { city: 'Oslo' } }] };
    case 'hang':
      // Some text, then silence until the client (the worker) goes away.
      return { text: 'Thinking about it', textChunks: 3, interrupt: { afterEvents: 3, action: 'hang' } };
    default:
      return { text: 'Hello from the scripted model.', usage: { inputTokens: 12, outputTokens: 6 } };
  }
}

/**
 * Start the scripted model and its control endpoint on loopback.
 *
 * @example
 * const model = await startModelFixture()
 * // worker env: MODEL_BASE_URL = model.baseURL
 * await model.close()
 */
export async function startModelFixture(): Promise<ModelFixture> {
  const server = await startScriptedModelServer({ script: scenarioReply });
  const control = createServer((req, res) => {
    if (req.url !== '/requests') {
      res.writeHead(404).end();
      return;
    }
    const body: ModelRequestInfo[] = server.requests.map((request) => ({
      index: request.index,
      path: request.path,
      outcome: request.outcome ?? null,
      scenario: marker(userText(request), 'scenario'),
      id: marker(userText(request), 'id'),
      tools: toolNames(request),
      hasToolResult: hasToolResult(request),
      authorization: request.headers.authorization ?? null,
    }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((done) => control.listen(0, '127.0.0.1', done));
  const dead = await holdUnreachablePort();
  return {
    server,
    baseURL: server.openAIBaseURL,
    controlURL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    deadBaseURL: `${dead.origin}/v1`,
    async close() {
      control.closeAllConnections();
      await new Promise<void>((done) => control.close(() => done()));
      await server.close();
      await dead.close();
    },
  };
}
