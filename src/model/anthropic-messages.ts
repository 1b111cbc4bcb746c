import type { Message, ToolCall } from '../message.js';
import {
  ModelStreamError,
  type FinishReason,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type ToolChoice,
} from './client.js';
import { globalFetch, isRecord, type FetchLike } from './http.js';
import { mergeOptions } from '../options.js';
import { wireClient } from './wire-client.js';
import type { RetryOptions } from './retry.js';
import { assertAdvertised, type ToolNameMap } from './tool-names.js';

/**
 * Options for {@link anthropicMessagesClient}. `baseURL` is the origin (the client appends
 * `/v1/messages`). In a browser, add `headers: { 'anthropic-dangerous-direct-browser-access': 'true' }`.
 *
 * @example
 * const options: AnthropicMessagesOptions = {
 *   apiKey: env.ANTHROPIC_API_KEY,
 *   model: 'claude-sonnet-4-5',
 *   maxTokens: 2048,
 * }
 */
export interface AnthropicMessagesOptions {
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  /** Used when a request sets no `maxTokens` (the protocol requires one). */
  readonly maxTokens?: number;
  readonly anthropicVersion?: string;
  /** Extra headers, applied last (they may override the defaults, e.g. `anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: FetchLike;
  readonly retry?: RetryOptions;
  /** Fields merged into every body after the standard ones (e.g. `{ metadata: {...} }`). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

const defaults = {
  baseURL: 'https://api.anthropic.com',
  maxTokens: 1024,
  anthropicVersion: '2023-06-01',
} as const;

const provider = 'anthropic';

/**
 * A {@link ModelClient} for the Anthropic Messages protocol (`POST {baseURL}/v1/messages`).
 * System messages become the top-level `system`; tool results become `tool_result` blocks
 * in one user message per run of results; assistant calls become `tool_use` blocks. Usage
 * combines `message_start` (input) and `message_delta` (output).
 *
 * @example
 * const client = anthropicMessagesClient({ apiKey: env.ANTHROPIC_API_KEY, model: 'claude-haiku-4-5' })
 * const reply = await client.complete({ messages, tools: selection.tools, toolChoice: 'auto' })
 */
export function anthropicMessagesClient(options: AnthropicMessagesOptions): ModelClient {
  const settings = mergeOptions(defaults, options);
  const fetch = settings.fetch ?? globalFetch;
  const url = `${settings.baseURL.replace(/\/+$/, '')}/v1/messages`;

  const headers = (streaming: boolean): Record<string, string> => ({
    'content-type': 'application/json',
    accept: streaming ? 'text/event-stream' : 'application/json',
    'anthropic-version': settings.anthropicVersion,
    ...(settings.apiKey ? { 'x-api-key': settings.apiKey } : {}),
    ...settings.headers,
  });

  return wireClient({
    provider,
    model: settings.model,
    url,
    fetch,
    retry: settings.retry,
    headers,
    body: (request, names) => anthropicBody(request, names, settings),
    decoder: createAnthropicStreamDecoder,
    parse: parseAnthropicResponse,
  });
}

function anthropicBody(
  request: ModelRequest,
  names: ToolNameMap,
  settings: { model: string; maxTokens: number; extraBody?: Readonly<Record<string, unknown>> },
): Record<string, unknown> {
  const system = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  const hasTools = request.tools.length > 0;
  return {
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    ...(system !== '' ? { system } : {}),
    messages: anthropicMessages(request.messages, names),
    ...(hasTools
      ? {
          tools: request.tools.map((tool) => ({
            name: names.toWire(tool.name),
            description: tool.description,
            input_schema: tool.parameters,
          })),
        }
      : {}),
    ...(hasTools && request.toolChoice !== undefined ? { tool_choice: anthropicToolChoice(request.toolChoice, request, names) } : {}),
    temperature: request.temperature,
    ...(request.stream ? { stream: true } : {}),
    ...settings.extraBody,
  };
}

function anthropicToolChoice(choice: ToolChoice, request: ModelRequest, names: ToolNameMap): unknown {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  assertAdvertised(choice.name, request.tools);
  return { type: 'tool', name: names.toWire(choice.name) };
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/**
 * Map messages to the Messages protocol. Consecutive tool results share one user message
 * (the protocol wants every result for a turn's calls in the message right after it), and
 * a user message that directly follows them joins that message after the results.
 */
function anthropicMessages(messages: readonly Message[], names: ToolNameMap): WireMessage[] {
  const out: WireMessage[] = [];
  // The user message collecting tool results, while more may still join it.
  let results: { message: WireMessage; blocks: Block[]; acceptsResults: boolean } | undefined;

  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user': {
        const blocks: Block[] =
          typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.map((part) => ({ type: 'text', text: part.text }));
        if (results) {
          results.blocks.push(...blocks.filter((block) => block.text !== ''));
          results.acceptsResults = false;
        } else {
          out.push({
            role: 'user',
            content: typeof message.content === 'string' ? message.content : blocks,
          });
        }
        break;
      }
      case 'assistant': {
        results = undefined;
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) {
          out.push({ role: 'assistant', content: message.content });
          break;
        }
        out.push({
          role: 'assistant',
          content: [
            // The protocol rejects empty text blocks.
            ...(message.content !== '' ? [{ type: 'text', text: message.content }] : []),
            ...calls.map((call) => ({
              type: 'tool_use',
              id: call.id,
              name: names.toWire(call.name),
              input: parseInput(call.arguments),
            })),
          ],
        });
        break;
      }
      case 'tool': {
        const block: Block = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
          ...(message.isError ? { is_error: true } : {}),
        };
        if (results?.acceptsResults) results.blocks.push(block);
        else {
          const blocks = [block];
          const wire: WireMessage = { role: 'user', content: blocks };
          out.push(wire);
          results = { message: wire, blocks, acceptsResults: true };
        }
        break;
      }
    }
  }
  return out;
}

/** Our calls keep arguments as JSON text; the protocol wants an object (`{}` when unusable). */
function parseInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * Map an Anthropic `stop_reason` to a {@link FinishReason}.
 *
 * @example
 * anthropicFinishReason('end_turn', false) // 'stop'
 */
export function anthropicFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'refusal') return 'content_filter';
  if (hasToolCalls || reason === 'tool_use') return 'tool_calls';
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'stop';
  return 'other';
}

/** Token counts as reported so far; later reports replace earlier ones field by field. */
interface UsageCounts {
  input?: number;
  cacheCreation?: number;
  cacheRead?: number;
  output?: number;
}

function mergeUsage(counts: UsageCounts, value: unknown): void {
  if (!isRecord(value)) return;
  const read = (key: string): number | undefined => (typeof value[key] === 'number' ? (value[key] as number) : undefined);
  counts.input = read('input_tokens') ?? counts.input;
  counts.cacheCreation = read('cache_creation_input_tokens') ?? counts.cacheCreation;
  counts.cacheRead = read('cache_read_input_tokens') ?? counts.cacheRead;
  counts.output = read('output_tokens') ?? counts.output;
}

function usageOf(counts: UsageCounts): ModelUsage | undefined {
  if (counts.input === undefined && counts.output === undefined) return undefined;
  return {
    inputTokens: (counts.input ?? 0) + (counts.cacheCreation ?? 0) + (counts.cacheRead ?? 0),
    outputTokens: counts.output ?? 0,
  };
}

function toolCall(id: string, wireName: string, args: string, names: ToolNameMap): ToolCall {
  return { id, name: names.fromWire(wireName), arguments: args === '' ? '{}' : args };
}

/**
 * Incremental decoder for Messages stream events (the `data` of each SSE event; the JSON
 * `type` field names the event). `done` turns true at `message_stop`; `end` finishes a
 * stream that closed without it (an error unless `message_delta` brought a stop reason).
 *
 * @example
 * const decoder = createAnthropicStreamDecoder(createToolNameMap([]))
 * decoder.push('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}')
 * // [{ type: 'text', delta: 'Hi' }]
 */
export function createAnthropicStreamDecoder(names: ToolNameMap): {
  push(data: string): ModelEvent[];
  end(): ModelEvent[];
  readonly done: boolean;
} {
  interface ToolBlock {
    id: string;
    name: string;
    json: string;
    input: unknown;
  }
  const tools = new Map<number, ToolBlock>();
  const counts: UsageCounts = {};
  let stopReason: string | undefined;
  let calls = 0;
  let done = false;

  const emitTool = (index: number): ModelEvent[] => {
    const block = tools.get(index);
    if (!block) return [];
    tools.delete(index);
    calls++;
    const hasInput = isRecord(block.input) && Object.keys(block.input).length > 0;
    const args = block.json !== '' ? block.json : hasInput ? JSON.stringify(block.input) : '{}';
    return [{ type: 'tool_call', call: toolCall(block.id, block.name, args, names) }];
  };

  const finish = (): ModelEvent[] => {
    done = true;
    const events = [...tools.keys()].sort((a, b) => a - b).flatMap(emitTool);
    const usage = usageOf(counts);
    if (usage) events.push({ type: 'usage', usage });
    events.push({
      type: 'finish',
      reason: anthropicFinishReason(stopReason, calls > 0),
      ...(stopReason !== undefined ? { providerReason: stopReason } : {}),
    });
    return events;
  };

  return {
    get done() {
      return done;
    },
    push(data) {
      if (done) return [];
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch (error) {
        throw new ModelStreamError(provider, `malformed stream event: ${data.slice(0, 200)}`, { cause: error });
      }
      if (!isRecord(event)) throw new ModelStreamError(provider, `unexpected stream event: ${data.slice(0, 200)}`);
      const index = typeof event.index === 'number' ? event.index : 0;
      switch (event.type) {
        case 'message_start':
          mergeUsage(counts, isRecord(event.message) ? event.message.usage : undefined);
          return [];
        case 'content_block_start': {
          const block = isRecord(event.content_block) ? event.content_block : {};
          if (block.type === 'tool_use') {
            tools.set(index, {
              id: typeof block.id === 'string' ? block.id : `toolu_${index}`,
              name: typeof block.name === 'string' ? block.name : '',
              json: '',
              input: block.input,
            });
          } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
            return [{ type: 'text', delta: block.text }];
          }
          return [];
        }
        case 'content_block_delta': {
          const delta = isRecord(event.delta) ? event.delta : {};
          if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
            return [{ type: 'text', delta: delta.text }];
          }
          if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
            const block = tools.get(index);
            if (block) block.json += delta.partial_json;
          }
          return [];
        }
        case 'content_block_stop':
          return emitTool(index);
        case 'message_delta': {
          const delta = isRecord(event.delta) ? event.delta : {};
          if (typeof delta.stop_reason === 'string') stopReason = delta.stop_reason;
          mergeUsage(counts, event.usage);
          return [];
        }
        case 'message_stop':
          return finish();
        case 'error': {
          const error = isRecord(event.error) ? event.error : {};
          const type = typeof error.type === 'string' ? error.type : undefined;
          const message = typeof error.message === 'string' ? error.message : data.slice(0, 200);
          throw new ModelStreamError(provider, `error in stream: ${message}`, {
            ...(type !== undefined ? { errorType: type } : {}),
            retryable: type === 'overloaded_error' || type === 'api_error' || type === 'rate_limit_error',
          });
        }
        default:
          // ping, thinking blocks, and event types added later: nothing for us.
          return [];
      }
    },
    end() {
      if (done) return [];
      if (stopReason === undefined) throw new ModelStreamError(provider, 'stream ended before message_stop');
      return finish();
    },
  };
}

/**
 * Read a non-streaming Messages response.
 *
 * @example
 * const reply = parseAnthropicResponse(await response.json(), createToolNameMap([]))
 */
export function parseAnthropicResponse(json: unknown, names: ToolNameMap): ModelResponse {
  if (!isRecord(json) || !Array.isArray(json.content)) {
    throw new ModelStreamError(provider, `unexpected response: ${JSON.stringify(json).slice(0, 200)}`);
  }
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  json.content.filter(isRecord).forEach((block, index) => {
    if (block.type === 'text' && typeof block.text === 'string') text.push(block.text);
    if (block.type === 'tool_use') {
      const id = typeof block.id === 'string' ? block.id : `toolu_${index}`;
      const name = typeof block.name === 'string' ? block.name : '';
      toolCalls.push(toolCall(id, name, JSON.stringify(isRecord(block.input) ? block.input : {}), names));
    }
  });
  const counts: UsageCounts = {};
  mergeUsage(counts, json.usage);
  const usage = usageOf(counts);
  const raw = typeof json.stop_reason === 'string' ? json.stop_reason : undefined;
  return {
    text: text.join(''),
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason: anthropicFinishReason(raw, toolCalls.length > 0),
    ...(raw !== undefined ? { providerReason: raw } : {}),
  };
}
