import type { Message } from '../message.js';
import { mergeOptions } from '../options.js';
import type { ToolSchema } from '../registry/schema.js';
import {
  type FinishReason,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelResponse,
  ModelStreamError,
  type ModelUsage,
  type ToolChoice,
} from './client.js';
import { endpointURL, type FetchLike, globalFetch, isRecord, jsonRequestHeaders, parseStreamEvent } from './http.js';
import type { RetryOptions } from './retry.js';
import { assertAdvertised, type ToolNameMap, wireToolCall } from './tool-names.js';
import { type StreamDecoder, wireClient } from './wire-client.js';

/**
 * Options for {@link openAIChatClient}. `baseURL` includes the version segment (`/v1`); the
 * default is a local Ollama.
 *
 * @example
 * const options: OpenAIChatOptions = {
 *   baseURL: 'https://api.openai.com/v1',
 *   apiKey: env.OPENAI_API_KEY,
 *   model: 'gpt-4o-mini',
 * }
 */
export interface OpenAIChatOptions {
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  /** Extra headers, applied last (they may override the defaults). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: FetchLike;
  readonly retry?: RetryOptions;
  /** Fields merged into every body after the standard ones (e.g. `{ seed: 1 }`). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /**
   * Where `maxTokens` goes. `max_tokens` is what most OpenAI-compatible servers read;
   * OpenAI's reasoning models want `max_completion_tokens`.
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

const defaults = {
  baseURL: 'http://127.0.0.1:11434/v1',
  maxTokensField: 'max_tokens',
} as const;

const provider = 'openai';

/**
 * A {@link ModelClient} for the OpenAI Chat Completions protocol (`POST {baseURL}/chat/completions`),
 * spoken by OpenAI and by Ollama, vLLM, llama.cpp and most gateways. Streams with
 * `stream_options.include_usage` so usage arrives in the final chunk; tool-call fragments are
 * reassembled by index; tool names outside `^[a-zA-Z0-9_-]{1,64}$` are mapped on the wire
 * and back.
 *
 * @example
 * const client = openAIChatClient({ model: 'qwen3:4b' })   // local Ollama
 * for await (const event of client.stream({ messages, tools })) {
 *   if (event.type === 'text') write(event.delta)
 * }
 */
export function openAIChatClient(options: OpenAIChatOptions): ModelClient {
  const settings = mergeOptions(defaults, options);
  const fetch = settings.fetch ?? globalFetch;
  const url = endpointURL(settings.baseURL, '/chat/completions');

  const credentials: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  const headers = (streaming: boolean) => jsonRequestHeaders(streaming, credentials, settings.headers);

  return wireClient({
    provider,
    model: settings.model,
    url,
    fetch,
    retry: settings.retry,
    headers,
    body: (request, names) => openAIBody(request, names, settings),
    decoder: createOpenAIStreamDecoder,
    parse: parseOpenAIResponse,
  });
}

function openAIBody(
  request: ModelRequest,
  names: ToolNameMap,
  settings: { model: string; maxTokensField: string; extraBody?: Readonly<Record<string, unknown>> },
): Record<string, unknown> {
  const hasTools = request.tools.length > 0;
  return {
    model: settings.model,
    messages: request.messages.map((message) => openAIMessage(message, names)),
    ...(hasTools ? { tools: request.tools.map((tool) => openAITool(tool, names)) } : {}),
    ...(hasTools && request.toolChoice !== undefined
      ? { tool_choice: openAIToolChoice(request.toolChoice, request.tools, names) }
      : {}),
    [settings.maxTokensField]: request.maxTokens,
    temperature: request.temperature,
    ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    ...settings.extraBody,
  };
}

function openAIMessage(message: Message, names: ToolNameMap): Record<string, unknown> {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return {
        role: 'user',
        content:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => ({ type: 'text', text: part.text })),
      };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // The protocol wants null, not '', beside tool calls.
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: names.toWire(call.name), arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function openAITool(tool: ToolSchema, names: ToolNameMap): Record<string, unknown> {
  return {
    type: 'function',
    function: { name: names.toWire(tool.name), description: tool.description, parameters: tool.parameters },
  };
}

function openAIToolChoice(choice: ToolChoice, tools: readonly ToolSchema[], names: ToolNameMap): unknown {
  if (typeof choice === 'string') return choice;
  assertAdvertised(choice.name, tools);
  return { type: 'function', function: { name: names.toWire(choice.name) } };
}

/**
 * Map an OpenAI `finish_reason` to a {@link FinishReason}.
 *
 * @example
 * openAIFinishReason('tool_calls', false) // 'tool_calls'
 */
export function openAIFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'length') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  if (hasToolCalls || reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  if (reason === 'stop') return 'stop';
  return 'other';
}

function openAIUsage(value: unknown): ModelUsage | undefined {
  if (!isRecord(value)) return undefined;
  const input = value.prompt_tokens;
  const output = value.completion_tokens;
  if (typeof input !== 'number' && typeof output !== 'number') return undefined;
  return { inputTokens: typeof input === 'number' ? input : 0, outputTokens: typeof output === 'number' ? output : 0 };
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  // Some compatible servers send the arguments as an object rather than JSON text.
  if (value !== undefined && value !== null) return JSON.stringify(value);
  return '';
}

/**
 * Incremental decoder for Chat Completions stream chunks (the `data` of each SSE event).
 * `push` returns the events a chunk completes; `done` turns true at `[DONE]`; `end` finishes
 * a stream that closed without `[DONE]` (an error unless a `finish_reason` was seen).
 *
 * @example
 * const decoder = createOpenAIStreamDecoder(createToolNameMap([]))
 * decoder.push('{"choices":[{"index":0,"delta":{"content":"Hi"}}]}') // [{ type: 'text', delta: 'Hi' }]
 */
export function createOpenAIStreamDecoder(names: ToolNameMap): StreamDecoder {
  interface Partial {
    id: string;
    name: string;
    args: string;
  }
  const calls = new Map<number, Partial>();
  let lastKey = -1;
  let emitted = 0;
  let finishRaw: string | undefined;
  let usage: ModelUsage | undefined;
  let done = false;

  const slotFor = (fragment: Record<string, unknown>): Partial => {
    const id = typeof fragment.id === 'string' ? fragment.id : '';
    let key: number;
    if (typeof fragment.index === 'number') key = fragment.index;
    // No index (some compatible servers): a new id starts a new call, anything else continues.
    else if (id !== '' && ![...calls.values()].some((call) => call.id === id)) key = Math.max(-1, ...calls.keys()) + 1;
    else key = Math.max(0, lastKey);
    lastKey = key;
    let slot = calls.get(key);
    if (!slot) {
      slot = { id: '', name: '', args: '' };
      calls.set(key, slot);
    }
    return slot;
  };

  const flushCalls = (): ModelEvent[] => {
    const events: ModelEvent[] = [];
    const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
    for (const [key, call] of ordered.slice(emitted)) {
      events.push({ type: 'tool_call', call: wireToolCall(call.id || `call_${key}`, call.name, call.args, names) });
    }
    emitted = ordered.length;
    return events;
  };

  const finish = (): ModelEvent[] => {
    done = true;
    const events = flushCalls();
    if (usage) events.push({ type: 'usage', usage });
    events.push({
      type: 'finish',
      reason: openAIFinishReason(finishRaw, calls.size > 0),
      ...(finishRaw !== undefined ? { providerReason: finishRaw } : {}),
    });
    return events;
  };

  return {
    get done() {
      return done;
    },
    push(data) {
      if (done) return [];
      if (data.trim() === '[DONE]') return finish();
      const chunk = parseStreamEvent(provider, data, 'chunk');
      if (chunk.error !== undefined) throw inStreamError(chunk.error);
      usage = openAIUsage(chunk.usage) ?? usage;
      const events: ModelEvent[] = [];
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const choice = choices.find((c) => isRecord(c) && (c.index === undefined || c.index === 0));
      if (!isRecord(choice)) return events;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string' && delta.content !== '')
        events.push({ type: 'text', delta: delta.content });
      if (Array.isArray(delta.tool_calls)) {
        for (const fragment of delta.tool_calls) {
          if (!isRecord(fragment)) continue;
          const slot = slotFor(fragment);
          if (typeof fragment.id === 'string' && fragment.id !== '') slot.id = fragment.id;
          const fn = isRecord(fragment.function) ? fragment.function : {};
          // Some servers repeat the name on every fragment: the first one counts.
          if (typeof fn.name === 'string' && slot.name === '') slot.name = fn.name;
          slot.args += argumentsText(fn.arguments);
        }
      }
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
        finishRaw = choice.finish_reason;
        events.push(...flushCalls());
      }
      return events;
    },
    end() {
      if (done) return [];
      if (finishRaw === undefined) throw new ModelStreamError(provider, 'stream ended before [DONE]');
      return finish();
    },
  };
}

function inStreamError(error: unknown): ModelStreamError {
  const detail = isRecord(error) ? error : { message: error };
  const message = typeof detail.message === 'string' ? detail.message : JSON.stringify(error);
  const type =
    typeof detail.type === 'string' ? detail.type : typeof detail.code === 'string' ? detail.code : undefined;
  return new ModelStreamError(provider, `error in stream: ${message}`, type !== undefined ? { errorType: type } : {});
}

/**
 * Read a non-streaming Chat Completions response.
 *
 * @example
 * const reply = parseOpenAIResponse(await response.json(), createToolNameMap([]))
 */
export function parseOpenAIResponse(json: unknown, names: ToolNameMap): ModelResponse {
  if (!isRecord(json) || !Array.isArray(json.choices)) {
    throw new ModelStreamError(provider, `unexpected response: ${JSON.stringify(json).slice(0, 200)}`);
  }
  const choice = json.choices.find((c) => isRecord(c) && (c.index === undefined || c.index === 0));
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : {};
  const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : [])
    .filter(isRecord)
    .map((call, index) => {
      const fn = isRecord(call.function) ? call.function : {};
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`;
      return wireToolCall(id, typeof fn.name === 'string' ? fn.name : '', argumentsText(fn.arguments), names);
    });
  const raw = isRecord(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
  const usage = openAIUsage(json.usage);
  return {
    text: typeof message.content === 'string' ? message.content : '',
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason: openAIFinishReason(raw, toolCalls.length > 0),
    ...(raw !== undefined ? { providerReason: raw } : {}),
  };
}
