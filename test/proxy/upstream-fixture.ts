/**
 * The proxy's upstream for tests: the scripted model server (real OpenAI and Anthropic wire
 * protocols over loopback) behind a recording front on one origin, which also answers OpenAI
 * Responses (`POST /v1/responses`) itself. A control endpoint reports exactly what the
 * upstream received, so workerd tests can check it over HTTP as Node tests do.
 *
 * Requests are validated as the real APIs do (the scripted server's strict rules), with what
 * the vendors' tool search adds: typed `tools` entries without a name or schema, deferred tools
 * (at least one must stay loaded), `tool_reference`s that must name a declared tool. A tool
 * search tool's own server-side search is not emulated.
 *
 * Scenarios, by markers in the request (`[[scenario:…]]`): `tool` (a weather tool call),
 * `rate-limit` (429 with `Retry-After: 7`), `hang` (never answers), `slow-stream` (text
 * streamed over ~3 s), `slow-start` (a text answer after 1.2 s), `need-<tool>` (a model that needs `<tool>`: it calls it when declared,
 * else searches with the proxy's search tool and calls what it found, see {@link modelTurn}),
 * default (a short text answer).
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validateAnthropic } from '../support/scripted-model/anthropic-wire.js';
import { validateOpenAI } from '../support/scripted-model/openai-wire.js';
import type { RecordedRequest, ScriptedReply, ScriptedToolCall } from '../support/scripted-model-server.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';
import { holdUnreachablePort } from '../support/unreachable-port.js';

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
  /** Tool names in the order the upstream saw them (`''` for a typed entry without a name). */
  tools: string[];
  /** Set when the upstream refused the request as the real API would (its 400 message). */
  rejected: string | null;
}

/** One request as the front received it. */
export interface FrontRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBytes: Uint8Array;
  readonly rawBody: string;
  readonly json: unknown;
  readonly stream: boolean;
  rejected: string | undefined;
  outcome: string | undefined;
  readonly settled: Promise<string>;
}

/** A running upstream fixture. */
export interface UpstreamFixture {
  /** Every request, in arrival order. */
  readonly requests: readonly FrontRequest[];
  /** `…/v1`: PROXY_OPENAI_BASE_URL. */
  readonly openAIBaseURL: string;
  /** The origin: PROXY_ANTHROPIC_BASE_URL. */
  readonly anthropicBaseURL: string;
  /** `GET {controlURL}/requests?id=…[&settled=1]` → {@link UpstreamRequestInfo}[]. */
  readonly controlURL: string;
  /** An origin on a loopback port the fixture holds and that resets every connection (no upstream there). */
  readonly deadURL: string;
  close(): Promise<void>;
}

/** The protocol a request spoke, by its path. */
export type FixtureProtocol = 'openai' | 'anthropic' | 'responses';

/** Options for {@link startUpstreamFixture}. */
export interface UpstreamFixtureOptions {
  /** Replaces the marker scenarios (benchmarks script their own model). */
  readonly script?: (request: FrontRequest, protocol: FixtureProtocol) => ScriptedReply | Promise<ScriptedReply>;
  /** Keep only the latest this many requests. Default all. */
  readonly keepRequests?: number;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The last `[[name:value]]` marker in a text (a later user message overrides an earlier one). */
const marker = (text: string, name: string): string | null =>
  [...text.matchAll(new RegExp(`\\[\\[${name}:([\\w-]+)\\]\\]`, 'g'))].at(-1)?.[1] ?? null;

/** The tool names a request declares, in order (`''` for a typed entry without one). */
export function toolNames(json: unknown): string[] {
  const tools = isObject(json) ? json.tools : undefined;
  if (!Array.isArray(tools)) return [];
  return tools.map((tool: unknown) => {
    if (!isObject(tool)) return '';
    const fn = isObject(tool.function) ? tool.function : undefined;
    return String(fn?.name ?? tool.name ?? '');
  });
}

/** The text of what the proxy (or a client) answered tool calls with, in order. */
function toolResults(json: unknown, protocol: FixtureProtocol): string[] {
  if (!isObject(json)) return [];
  const out: string[] = [];
  const text = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('')
        : '';
  if (protocol === 'responses') {
    for (const item of Array.isArray(json.input) ? json.input : [])
      if (isObject(item) && item.type === 'function_call_output') out.push(text(item.output));
    return out;
  }
  for (const message of Array.isArray(json.messages) ? json.messages : []) {
    if (!isObject(message)) continue;
    if (message.role === 'tool') out.push(text(message.content));
    if (message.role === 'user' && Array.isArray(message.content)) {
      for (const block of message.content)
        if (isObject(block) && block.type === 'tool_result') out.push(text(block.content));
    }
  }
  return out;
}

/** The tool lists the proxy put after the last message (its tail reveal), as JSON texts. */
function revealNotes(json: unknown): string[] {
  const notes: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 8) return;
    if (typeof value === 'string') {
      const at = value.indexOf('[loopctl] More tools for this request');
      if (at !== -1) notes.push(value.slice(value.indexOf('{', at)));
    } else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (isObject(value))
      for (const [key, child] of Object.entries(value)) if (key !== 'tools') walk(child, depth + 1);
  };
  walk(json, 0);
  return notes;
}

/** Whether the conversation already holds a call of `name`, made directly or through a call tool. */
function calledBefore(json: unknown, protocol: FixtureProtocol, name: string): boolean {
  if (!isObject(json)) return false;
  const calls: { name: unknown; args: unknown }[] = [];
  if (protocol === 'responses') {
    for (const item of Array.isArray(json.input) ? json.input : [])
      if (isObject(item) && item.type === 'function_call') calls.push({ name: item.name, args: item.arguments });
  } else {
    for (const message of Array.isArray(json.messages) ? json.messages : []) {
      if (!isObject(message) || message.role !== 'assistant') continue;
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (isObject(call) && isObject(call.function))
          calls.push({ name: call.function.name, args: call.function.arguments });
      }
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (isObject(block) && block.type === 'tool_use') calls.push({ name: block.name, args: block.input });
      }
    }
  }
  return calls.some((call) => {
    if (call.name === name) return true;
    const args = typeof call.args === 'string' ? safeParse(call.args) : call.args;
    return isObject(args) && args.name === name;
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The latest user text of a request, markers removed. */
export function userText(json: unknown, protocol: FixtureProtocol): string {
  if (!isObject(json)) return '';
  const items: unknown[] =
    protocol === 'responses'
      ? typeof json.input === 'string'
        ? [{ role: 'user', content: json.input }]
        : Array.isArray(json.input)
          ? json.input
          : []
      : Array.isArray(json.messages)
        ? json.messages
        : [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (!isObject(item) || item.role !== 'user') continue;
    const content = item.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content
              .map((part) =>
                isObject(part) && (part.type === 'text' || part.type === 'input_text') && typeof part.text === 'string'
                  ? part.text
                  : '',
              )
              .join(' ')
          : '';
    if (text.trim() !== '') return text.replace(/\[\[[\w-]+:[\w-]+\]\]/g, '').trim();
  }
  return '';
}

/** What a scripted model needs next: a call of `name` with `arguments`. */
export interface ModelNeed {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** What it searches with, in order, when `name` is not declared. Default: the user's text, then the tool's name in words. */
  readonly queries?: readonly string[];
}

let callCounter = 0;

/**
 * A model's turn for a request, given what it needs: the call when the tool is declared; else,
 * with the proxy's search offered, a search (the next query), and once a search result lists
 * the tool, its call (through the proxy's call tool when one is offered, directly once the
 * tool is declared); a text answer when there is nothing left to try.
 *
 * @example
 * modelTurn(request.json, 'openai', { name: 'get_current_weather', arguments: { city: 'Oslo' } })
 */
export function modelTurn(json: unknown, protocol: FixtureProtocol, need: ModelNeed): ScriptedReply {
  const declared = toolNames(json);
  const id = (): string => `${protocol === 'anthropic' ? 'toolu' : 'call'}_m${++callCounter}`;
  const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
    toolCalls: [{ id: id(), name, arguments: args } satisfies ScriptedToolCall],
  });
  if (declared.includes(need.name)) return call(need.name, need.arguments);
  const search = declared.find((name) => /(?:^|_)find_tools(?:_\d+)?$/.test(name));
  const via = declared.find((name) => /(?:^|_)call_tool(?:_\d+)?$/.test(name));
  const results = toolResults(json, protocol);
  const found = [...results, ...revealNotes(json)].some((result) => {
    try {
      const parsed = JSON.parse(result) as { tools?: { name?: string }[] };
      return Array.isArray(parsed.tools) && parsed.tools.some((tool) => tool.name === need.name);
    } catch {
      return false;
    }
  });
  // A tool the model called before (directly, or through the call tool) it can call again without a search.
  const known = found || calledBefore(json, protocol, need.name);
  if (known && via) return call(via, { name: need.name, arguments: need.arguments });
  const searched = results.filter((result) => result.startsWith('{"tools":')).length;
  const queries = need.queries ?? [userText(json, protocol), need.name.replace(/_/g, ' ')];
  if (search && !known && searched < queries.length) return call(search, { query: queries[searched] ?? need.name });
  return { text: `I cannot reach ${need.name} from here.` };
}

function reply(request: FrontRequest, protocol: FixtureProtocol): ScriptedReply {
  const scenario = marker(request.rawBody, 'scenario') ?? 'text';
  if (scenario.startsWith('need-'))
    return modelTurn(request.json, protocol, { name: scenario.slice(5), arguments: { city: 'Oslo' } });
  switch (scenario) {
    case 'tool':
      return {
        toolCalls: [{ name: 'get_current_weather', arguments: { city: 'Oslo' } }],
        usage: { inputTokens: 30, outputTokens: 12 },
      };
    case 'rate-limit':
      return {
        kind: 'error',
        status: 429,
        message: 'Rate limit reached for requests',
        headers: { 'retry-after': '7', 'x-ratelimit-remaining-requests': '0' },
      };
    case 'hang':
      return { kind: 'hang' };
    case 'slow-stream':
      return { text: 'one two three four five six seven eight nine ten', chunkDelayMs: 300 };
    case 'slow-start':
      return { text: 'Hello from the upstream.', delayMs: 1200, usage: { inputTokens: 12, outputTokens: 5 } };
    default:
      return { text: 'Hello from the upstream.', usage: { inputTokens: 12, outputTokens: 5 } };
  }
}

/** The report for one request. */
export function describeRequest(request: FrontRequest): UpstreamRequestInfo {
  return {
    index: request.index,
    method: request.method,
    path: request.path,
    headers: { ...request.headers },
    rawBody: request.rawBody,
    rawBase64: Buffer.from(request.rawBytes).toString('base64'),
    outcome: request.outcome ?? null,
    tools: toolNames(request.json),
    rejected: request.rejected ?? null,
  };
}

/**
 * Anthropic validation with the tool search shapes: typed entries and deferred tools are
 * checked here, the rest by the scripted server's strict rules.
 */
function validateAnthropicRequest(json: Json, headers: Record<string, string>): string | undefined {
  const tools = Array.isArray(json.tools) ? json.tools : undefined;
  if (tools) {
    // The scripted server checks custom tools, deferral and the hosted search tools itself (a
    // server_tool_use must name a search tool of the request); other typed entries stop here.
    const custom = tools.filter(
      (tool) =>
        isObject(tool) &&
        (tool.type === undefined ||
          tool.type === 'custom' ||
          (typeof tool.type === 'string' && tool.type.startsWith('tool_search_tool_'))),
    );
    const loaded = tools.filter((tool) => isObject(tool) && tool.defer_loading !== true);
    if (tools.length > 0 && loaded.length === 0) return 'tools: at least one tool must not have defer_loading set';
    for (const [i, tool] of tools.entries()) {
      if (isObject(tool) && tool.type !== undefined && tool.type !== 'custom' && typeof tool.type !== 'string')
        return `tools.${i}.type: must be a string`;
    }
    const declared = new Set(toolNames(json));
    for (const name of referenced(json.messages)) {
      if (!declared.has(name)) return `messages: tool_reference names "${name}", which is not in tools`;
    }
    const rest: Json = { ...json, ...(custom.length > 0 ? { tools: custom } : {}) };
    if (custom.length === 0) delete rest.tools;
    if (custom.length === 0) delete rest.tool_choice;
    return validateAnthropic(rest, headers);
  }
  return validateAnthropic(json, headers);
}

function referenced(value: unknown, depth = 0, into: string[] = []): string[] {
  if (depth > 8) return into;
  if (Array.isArray(value)) for (const item of value) referenced(item, depth + 1, into);
  else if (isObject(value)) {
    if (value.type === 'tool_reference' && typeof value.tool_name === 'string') into.push(value.tool_name);
    for (const child of Object.values(value)) referenced(child, depth + 1, into);
  }
  return into;
}

/** Chat Completions validation, with `tool_choice: {"type":"allowed_tools"}` (its tools must be declared). */
function validateChat(json: Json): string | undefined {
  const choice = json.tool_choice;
  if (!isObject(choice) || choice.type !== 'allowed_tools') return validateOpenAI(json);
  const declared = new Set(toolNames(json));
  const allowed =
    isObject(choice.allowed_tools) && Array.isArray(choice.allowed_tools.tools) ? choice.allowed_tools.tools : [];
  for (const tool of allowed) {
    const name = isObject(tool) && isObject(tool.function) ? tool.function.name : undefined;
    if (typeof name !== 'string' || !declared.has(name))
      return `tool_choice.allowed_tools: ${String(name)} is not in tools`;
  }
  const rest: Json = { ...json };
  delete rest.tool_choice;
  return validateOpenAI(rest);
}

/** OpenAI Responses request validation (the checks the real API makes that tests rely on). */
function validateResponses(json: Json): string | undefined {
  if (typeof json.model !== 'string' || json.model === '') return "Missing required parameter: 'model'.";
  if (typeof json.input !== 'string' && !Array.isArray(json.input)) return "Missing required parameter: 'input'.";
  const names = new Set<string>();
  for (const [i, tool] of (Array.isArray(json.tools) ? json.tools : []).entries()) {
    if (!isObject(tool) || typeof tool.type !== 'string') return `Invalid 'tools[${i}]': a tool needs a type.`;
    if (tool.type !== 'function') continue;
    if (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) return `Invalid 'tools[${i}].name'.`;
    if (names.has(tool.name)) return `Duplicate tool name '${tool.name}'.`;
    names.add(tool.name);
  }
  if (Array.isArray(json.input)) {
    const calls = new Set<string>();
    for (const item of json.input) {
      if (!isObject(item)) return 'Invalid input item.';
      if (item.type === 'function_call') {
        if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string')
          return 'Invalid function_call item.';
        calls.add(item.call_id);
      }
      if (item.type === 'function_call_output') {
        if (typeof item.call_id !== 'string' || !calls.has(item.call_id))
          return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
        calls.delete(item.call_id);
      }
    }
    if (calls.size > 0) return `No tool output found for function call ${[...calls][0]}.`;
  }
  return undefined;
}

function openAIError(status: number, message: string, type = 'invalid_request_error'): string {
  return JSON.stringify({ error: { message, type, param: null, code: status === 429 ? 'rate_limit_exceeded' : null } });
}

let responseCounter = 0;

/** Answer a Responses request with a scripted reply, as JSON or SSE. */
async function answerResponses(res: ServerResponse, record: FrontRequest, scripted: ScriptedReply): Promise<void> {
  const json = record.json as Json;
  const closed = (): boolean => res.destroyed || record.outcome !== undefined;
  if (scripted.kind === 'hang') {
    await record.settled;
    return;
  }
  if (scripted.kind === 'error') {
    res.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers });
    res.end(
      typeof scripted.body === 'string'
        ? scripted.body
        : JSON.stringify(
            scripted.body ??
              JSON.parse(openAIError(scripted.status, scripted.message ?? 'scripted error', scripted.type)),
          ),
    );
    return;
  }
  if (scripted.kind === 'raw') {
    res.writeHead(scripted.status ?? 200, { 'content-type': 'text/event-stream', ...scripted.headers });
    for (const chunk of scripted.chunks) res.write(chunk);
    res.end();
    return;
  }
  if (scripted.delayMs) await new Promise((done) => setTimeout(done, scripted.delayMs));
  const id = `resp_scripted_${++responseCounter}`;
  const text = typeof scripted.text === 'string' ? scripted.text : (scripted.text ?? []).join('');
  const output: Json[] = [];
  if (text !== '') {
    output.push({
      type: 'message',
      id: `msg_${responseCounter}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [] }],
    });
  }
  for (const [i, call] of (scripted.toolCalls ?? []).entries()) {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    output.push({
      type: 'function_call',
      id: `fc_${responseCounter}_${i}`,
      call_id: call.id ?? `call_${responseCounter}_${i}`,
      name: call.name,
      arguments: args,
      status: 'completed',
    });
  }
  const usage =
    scripted.usage === false
      ? undefined
      : {
          input_tokens: scripted.usage?.inputTokens ?? Math.ceil(record.rawBody.length / 4),
          input_tokens_details: { cached_tokens: 0 },
          output_tokens:
            scripted.usage?.outputTokens ?? Math.max(1, Math.ceil((text.length + JSON.stringify(output).length) / 40)),
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 0,
        };
  if (usage) usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const response = {
    id,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: typeof json.model === 'string' ? json.model : 'scripted',
    output,
    parallel_tool_calls: true,
    tool_choice: json.tool_choice ?? 'auto',
    tools: Array.isArray(json.tools) ? json.tools : [],
    ...(usage ? { usage } : {}),
  };
  if (!record.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${id}` });
    res.end(JSON.stringify(response));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
  let sequence = 0;
  const send = async (data: Json): Promise<void> => {
    if (closed()) return;
    if (scripted.chunkDelayMs && sequence > 0) await new Promise((done) => setTimeout(done, scripted.chunkDelayMs));
    if (closed()) return;
    res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`);
  };
  const start = { ...response, status: 'in_progress', output: [] };
  delete (start as Json).usage;
  await send({ type: 'response.created', response: start });
  await send({ type: 'response.in_progress', response: start });
  for (const [index, item] of output.entries()) {
    if (item.type === 'message') {
      const part = { type: 'output_text', text: '', annotations: [] };
      await send({
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      await send({
        type: 'response.content_part.added',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part,
      });
      for (const piece of text.match(/\s*\S+/g) ?? [text])
        await send({
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: piece,
          logprobs: [],
        });
      await send({
        type: 'response.output_text.done',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        text,
        logprobs: [],
      });
      await send({
        type: 'response.content_part.done',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { ...part, text },
      });
    } else {
      await send({
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      await send({
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: index,
        delta: item.arguments,
      });
      await send({
        type: 'response.function_call_arguments.done',
        item_id: item.id,
        output_index: index,
        arguments: item.arguments,
      });
    }
    await send({ type: 'response.output_item.done', output_index: index, item });
  }
  await send({ type: 'response.completed', response });
  if (!closed()) res.end();
}

/**
 * Start the upstream and its control endpoint on loopback.
 *
 * @example
 * const upstream = await startUpstreamFixture()
 * // PROXY_OPENAI_BASE_URL = upstream.openAIBaseURL
 */
export async function startUpstreamFixture(options: UpstreamFixtureOptions = {}): Promise<UpstreamFixture> {
  const script = options.script ?? reply;
  const requests: FrontRequest[] = [];
  // Requests reach the scripted server already validated here: it answers them as they are.
  const pendingReplies = new Map<string, FrontRequest>();
  const scripted = await startScriptedModelServer({
    strict: false,
    keepAliveTimeoutMs: 120_000,
    ...(options.keepRequests !== undefined ? { keepRequests: options.keepRequests } : {}),
    script: async (forwarded: RecordedRequest) => {
      const key = forwarded.headers['x-fixture-request'] ?? '';
      const record = pendingReplies.get(key);
      pendingReplies.delete(key);
      if (!record) return { kind: 'error', status: 500, message: 'fixture: unknown request' };
      return script(record, forwarded.provider === 'anthropic' ? 'anthropic' : 'openai');
    },
  });

  let counter = 0;
  const front = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(openAIError(500, `fixture: ${String(error)}`, 'server_error'));
      else res.destroy();
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
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers))
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    const path = req.url ?? '/';
    const pathname = path.split('?')[0] ?? '/';
    let settle!: (outcome: string) => void;
    const record: FrontRequest = {
      index: counter++,
      method: req.method ?? 'GET',
      path,
      headers,
      rawBytes,
      rawBody,
      json,
      stream: isObject(json) && json.stream === true,
      rejected: undefined,
      outcome: undefined,
      settled: new Promise<string>((done) => (settle = done)),
    };
    res.on('close', () => {
      record.outcome = res.writableFinished ? 'completed' : 'client-closed';
      settle(record.outcome);
    });
    requests.push(record);
    if (options.keepRequests !== undefined && requests.length > options.keepRequests)
      requests.splice(0, requests.length - options.keepRequests);

    const protocol: FixtureProtocol | undefined = pathname.endsWith('/responses')
      ? 'responses'
      : pathname.endsWith('/chat/completions')
        ? 'openai'
        : pathname.endsWith('/messages')
          ? 'anthropic'
          : undefined;
    if (protocol && req.method === 'POST') {
      const problem = !isObject(json)
        ? 'request body is not valid JSON'
        : protocol === 'responses'
          ? validateResponses(json)
          : protocol === 'anthropic'
            ? validateAnthropicRequest(json, headers)
            : validateChat(json);
      if (problem !== undefined) {
        record.rejected = problem;
        const body =
          protocol === 'anthropic'
            ? JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: problem } })
            : openAIError(400, problem);
        res.writeHead(400, { 'content-type': 'application/json' }).end(body);
        return;
      }
      if (protocol === 'responses') return answerResponses(res, record, await script(record, 'responses'));
    }
    // Everything else: the scripted server, which answers with the script for this record.
    const key = `r${record.index}`;
    pendingReplies.set(key, record);
    await relay(req, res, rawBytes, key);
    pendingReplies.delete(key);
  }

  function relay(req: IncomingMessage, res: ServerResponse, body: Uint8Array, key: string): Promise<void> {
    return new Promise((done) => {
      const headers = { ...req.headers, 'x-fixture-request': key, 'content-length': String(body.byteLength) };
      delete headers['transfer-encoding'];
      const upstream = httpRequest(`${scripted.url}${req.url ?? '/'}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        res.flushHeaders();
        answer.on('data', (chunk: Buffer) => res.write(chunk));
        answer.on('end', () => {
          res.end();
          done();
        });
        answer.on('error', () => {
          res.destroy();
          done();
        });
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
        done();
      });
      // The proxy left: so does this request, and the scripted server sees the close.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
        done();
      });
      upstream.end(body);
    });
  }

  const control = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (url.pathname !== '/requests') {
      res.writeHead(404).end();
      return;
    }
    const id = url.searchParams.get('id');
    const matching = requests.filter((request) => id === null || marker(request.rawBody, 'id') === id);
    if (url.searchParams.get('settled') === '1') {
      await Promise.race([
        Promise.all(matching.map((request) => request.settled)),
        new Promise((done) => setTimeout(done, 10_000)),
      ]);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(matching.map(describeRequest)));
  });
  front.keepAliveTimeout = 120_000;
  await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
  await new Promise<void>((done) => control.listen(0, '127.0.0.1', done));
  const dead = await holdUnreachablePort();
  const origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  return {
    requests,
    openAIBaseURL: `${origin}/v1`,
    anthropicBaseURL: origin,
    controlURL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    deadURL: dead.origin,
    async close() {
      control.closeAllConnections();
      front.closeAllConnections();
      await new Promise<void>((done) => control.close(() => done()));
      await new Promise<void>((done) => front.close(() => done()));
      await scripted.close();
      await dead.close();
    },
  };
}
