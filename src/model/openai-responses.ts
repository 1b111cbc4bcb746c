import type { Message, ToolCall } from '../message.js';
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
import type {
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesRequestBody,
  ResponsesTool,
  ResponsesToolChoice,
} from './responses-wire.js';
import type { RetryOptions } from './retry.js';
import { assertAdvertised, type ToolNameMap } from './tool-names.js';
import { type StreamDecoder, wireClient } from './wire-client.js';

/**
 * Options for {@link openAIResponsesClient}. `baseURL` includes the version segment (`/v1`).
 *
 * @example
 * const options: OpenAIResponsesOptions = { apiKey: env.OPENAI_API_KEY, model: 'gpt-5-mini' }
 */
export interface OpenAIResponsesOptions {
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  /** Extra headers, applied last (they may override the defaults). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: FetchLike;
  readonly retry?: RetryOptions;
  /** Fields merged into every body after the standard ones (e.g. `{ reasoning: { effort: 'low' } }`). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

const provider = 'openai';
const protocol = 'openai-responses';

/**
 * A {@link ModelClient} for the OpenAI Responses API (`POST {baseURL}/responses`), stateless
 * (`store: false`: every request carries the conversation as input items). System messages
 * become `instructions`; calls and results become `function_call` / `function_call_output`
 * items. Deferred tools ride as function tools with `defer_loading: true`; the loop's own
 * search tool becomes a client-executed `tool_search`, whose calls arrive as tool calls of
 * that name and whose results go back as `tool_search_output` items carrying the found tools'
 * definitions. Output items loopctl does not model (reasoning, hosted tool calls) come back
 * in `providerContent` and are sent again as they came.
 *
 * @example
 * const client = openAIResponsesClient({ apiKey: env.OPENAI_API_KEY, model: 'gpt-5-mini' })
 * const loop = new BareLoop({ client, registry }).withToolSelector(bm25).withToolSearch({ deferred: true })
 */
export function openAIResponsesClient(options: OpenAIResponsesOptions): ModelClient {
  const settings = mergeOptions({ baseURL: 'https://api.openai.com/v1' }, options);
  const url = endpointURL(settings.baseURL, '/responses');
  const credentials: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  const headers = (streaming: boolean) => jsonRequestHeaders(streaming, credentials, settings.headers);
  return wireClient({
    provider,
    model: settings.model,
    url,
    fetch: settings.fetch ?? globalFetch,
    retry: settings.retry,
    toolSearch: { deferLoading: true, hosted: [] },
    headers,
    body: (request, names) => responsesBody(request, names, settings) as unknown as Record<string, unknown>,
    decoder: (names, request) => createResponsesStreamDecoder(names, searchToolOf(request)),
    parse: (json, names, request) => parseResponsesResponse(json, names, searchToolOf(request)),
  });
}

/** The advertised tool that is the loop's own search (rendered as a client-executed `tool_search`). */
function searchToolOf(request: ModelRequest): string | undefined {
  const search = request.toolSearch;
  return search && 'tool' in search && request.tools.some((tool) => tool.name === search.tool)
    ? search.tool
    : undefined;
}

/**
 * The Responses body for a request.
 *
 * @example
 * const body = responsesBody(request, requestToolNameMap(request), { model: 'gpt-5-mini' })
 */
export function responsesBody(
  request: ModelRequest,
  names: ToolNameMap,
  settings: { model: string; extraBody?: Readonly<Record<string, unknown>> },
): ResponsesRequestBody & Record<string, unknown> {
  const searchTool = searchToolOf(request);
  const deferred = request.deferredTools ?? [];
  const fn = (schema: ToolSchema, defer: boolean): ResponsesFunctionTool => ({
    type: 'function',
    name: names.toWire(schema.name),
    description: schema.description,
    parameters: schema.parameters as Record<string, unknown>,
    strict: false,
    ...(defer ? { defer_loading: true } : {}),
  });
  const tools: ResponsesTool[] = [
    ...request.tools.map(
      (schema): ResponsesTool =>
        schema.name === searchTool
          ? { type: 'tool_search', execution: 'client', description: schema.description, parameters: schema.parameters }
          : fn(schema, false),
    ),
    ...deferred.map((schema) => fn(schema, true)),
  ];
  const declared = new Map(
    [...request.tools, ...deferred]
      .filter((schema) => schema.name !== searchTool)
      .map((schema) => [schema.name, schema]),
  );
  const instructions = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  const hasTools = request.tools.length > 0;
  return {
    model: settings.model,
    ...(instructions !== '' ? { instructions } : {}),
    input: responsesInput(request.messages, names, searchTool, (name) => {
      const schema = declared.get(name);
      return schema ? fn(schema, false) : undefined;
    }),
    ...(tools.length > 0 ? { tools } : {}),
    ...(hasTools && request.toolChoice !== undefined
      ? { tool_choice: responsesToolChoice(request.toolChoice, request, names) }
      : {}),
    max_output_tokens: request.maxTokens,
    temperature: request.temperature,
    ...(request.stream ? { stream: true } : {}),
    store: false,
    ...settings.extraBody,
  };
}

function responsesToolChoice(choice: ToolChoice, request: ModelRequest, names: ToolNameMap): ResponsesToolChoice {
  if (typeof choice === 'string') return choice;
  assertAdvertised(choice.name, request.tools);
  return { type: 'function', name: names.toWire(choice.name) };
}

function responsesInput(
  messages: readonly Message[],
  names: ToolNameMap,
  searchTool: string | undefined,
  definition: (name: string) => ResponsesFunctionTool | undefined,
): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        items.push({
          type: 'message',
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part) => ({ type: 'input_text', text: part.text })),
        });
        break;
      case 'assistant': {
        if (message.providerContent?.protocol === protocol)
          items.push(...(message.providerContent.items as ResponsesInputItem[]));
        if (message.content !== '') items.push({ type: 'message', role: 'assistant', content: message.content });
        for (const call of message.toolCalls ?? []) {
          items.push(
            call.name === searchTool
              ? {
                  type: 'tool_search_call',
                  call_id: call.id,
                  execution: 'client',
                  arguments: parseArguments(call.arguments),
                  status: 'completed',
                }
              : { type: 'function_call', call_id: call.id, name: names.toWire(call.name), arguments: call.arguments },
          );
        }
        break;
      }
      case 'tool':
        if (message.name === searchTool) {
          // The found tools' definitions, loaded from here on; an error or no match loads none.
          const tools = (message.isError ? [] : (message.references ?? []))
            .map(definition)
            .filter((tool) => tool !== undefined);
          items.push({
            type: 'tool_search_output',
            call_id: message.toolCallId,
            execution: 'client',
            status: 'completed',
            tools,
          });
        } else {
          items.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
        }
        break;
    }
  }
  return items;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function usageOf(value: unknown): ModelUsage | undefined {
  if (!isRecord(value) || (typeof value.input_tokens !== 'number' && typeof value.output_tokens !== 'number'))
    return undefined;
  return {
    inputTokens: typeof value.input_tokens === 'number' ? value.input_tokens : 0,
    outputTokens: typeof value.output_tokens === 'number' ? value.output_tokens : 0,
  };
}

/**
 * Map a response's status to a {@link FinishReason}.
 *
 * @example
 * responsesFinishReason({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, false) // 'length'
 */
export function responsesFinishReason(
  response: Record<string, unknown>,
  hasToolCalls: boolean,
): { reason: FinishReason; raw: string | undefined } {
  const details = isRecord(response.incomplete_details) ? response.incomplete_details : {};
  const status = typeof response.status === 'string' ? response.status : undefined;
  if (status === 'incomplete') {
    const why = typeof details.reason === 'string' ? details.reason : undefined;
    return {
      reason: why === 'max_output_tokens' ? 'length' : why === 'content_filter' ? 'content_filter' : 'other',
      raw: why ?? status,
    };
  }
  if (hasToolCalls) return { reason: 'tool_calls', raw: status };
  return { reason: status === 'completed' || status === undefined ? 'stop' : 'other', raw: status };
}

/** One output item as events: text, a call (a client `tool_search_call` as a call of `searchTool`), or kept content. */
function itemEvents(
  item: Record<string, unknown>,
  names: ToolNameMap,
  searchTool: string | undefined,
  textSeen: boolean,
): ModelEvent[] {
  if (item.type === 'message') {
    if (textSeen || !Array.isArray(item.content)) return [];
    const text = item.content
      .filter(isRecord)
      .map((part) => (part.type === 'output_text' ? part.text : part.type === 'refusal' ? part.refusal : ''))
      .join('');
    return typeof text === 'string' && text !== '' ? [{ type: 'text', delta: text }] : [];
  }
  if (item.type === 'function_call') {
    const args = typeof item.arguments === 'string' ? item.arguments : '';
    const call: ToolCall = {
      id: String(item.call_id ?? item.id ?? ''),
      name: names.fromWire(String(item.name ?? '')),
      arguments: args === '' ? '{}' : args,
    };
    return [{ type: 'tool_call', call }];
  }
  // Reasoning sent back without its encrypted content cannot be resolved when nothing is stored.
  if (item.type === 'reasoning' && typeof item.encrypted_content !== 'string') return [];
  if (item.type === 'tool_search_call' && item.execution === 'client' && searchTool !== undefined) {
    const call: ToolCall = {
      id: String(item.call_id ?? item.id ?? ''),
      name: searchTool,
      arguments: JSON.stringify(item.arguments ?? {}),
    };
    return [{ type: 'tool_call', call }];
  }
  return [{ type: 'provider_content', protocol, item }];
}

function failure(response: unknown): ModelStreamError {
  const error = isRecord(response) && isRecord(response.error) ? response.error : {};
  const message = typeof error.message === 'string' ? error.message : 'the response failed';
  const code = typeof error.code === 'string' ? error.code : undefined;
  return new ModelStreamError(provider, `response failed: ${message}`, {
    ...(code !== undefined ? { errorType: code } : {}),
    retryable: code === 'server_error' || code === 'rate_limit_exceeded',
  });
}

/**
 * Incremental decoder for Responses stream events (the `data` of each SSE event). Text comes
 * from `response.output_text.delta`, each call from its `response.output_item.done`, usage and
 * the finish reason from `response.completed` / `response.incomplete` (then `done` is true).
 *
 * @example
 * const decoder = createResponsesStreamDecoder(createToolNameMap([]), undefined)
 * decoder.push('{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"Hi"}')
 * // [{ type: 'text', delta: 'Hi' }]
 */
export function createResponsesStreamDecoder(names: ToolNameMap, searchTool: string | undefined): StreamDecoder {
  const withText = new Set<unknown>();
  let calls = 0;
  let done = false;
  return {
    get done() {
      return done;
    },
    push(data) {
      if (done) return [];
      const event = parseStreamEvent(provider, data, 'event');
      switch (event.type) {
        case 'response.output_text.delta':
          withText.add(event.item_id);
          return typeof event.delta === 'string' && event.delta !== '' ? [{ type: 'text', delta: event.delta }] : [];
        case 'response.output_item.done': {
          const item = isRecord(event.item) ? event.item : {};
          const events = itemEvents(item, names, searchTool, withText.has(item.id));
          calls += events.filter((e) => e.type === 'tool_call').length;
          return events;
        }
        case 'response.completed':
        case 'response.incomplete': {
          done = true;
          const response = isRecord(event.response) ? event.response : {};
          const usage = usageOf(response.usage);
          const { reason, raw } = responsesFinishReason(response, calls > 0);
          return [
            ...(usage ? [{ type: 'usage' as const, usage }] : []),
            { type: 'finish', reason, ...(raw !== undefined ? { providerReason: raw } : {}) },
          ];
        }
        case 'response.failed':
          throw failure(event.response);
        case 'error': {
          const code = typeof event.code === 'string' ? event.code : undefined;
          const message = typeof event.message === 'string' ? event.message : data.slice(0, 200);
          throw new ModelStreamError(provider, `error in stream: ${message}`, {
            ...(code !== undefined ? { errorType: code } : {}),
            retryable: code === 'server_error' || code === 'rate_limit_exceeded',
          });
        }
        default:
          return [];
      }
    },
    end() {
      if (done) return [];
      throw new ModelStreamError(provider, 'stream ended before response.completed');
    },
  };
}

/**
 * Read a non-streaming Responses response.
 *
 * @example
 * const reply = parseResponsesResponse(await response.json(), createToolNameMap([]), undefined)
 */
export function parseResponsesResponse(
  json: unknown,
  names: ToolNameMap,
  searchTool: string | undefined,
): ModelResponse {
  if (!isRecord(json) || !Array.isArray(json.output))
    throw new ModelStreamError(provider, `unexpected response: ${JSON.stringify(json).slice(0, 200)}`);
  if (json.status === 'failed') throw failure(json);
  const events = json.output.filter(isRecord).flatMap((item) => itemEvents(item, names, searchTool, false));
  const toolCalls = events.flatMap((event) => (event.type === 'tool_call' ? [event.call] : []));
  const items = events.flatMap((event) => (event.type === 'provider_content' ? [event.item] : []));
  const usage = usageOf(json.usage);
  const { reason, raw } = responsesFinishReason(json, toolCalls.length > 0);
  return {
    text: events.map((event) => (event.type === 'text' ? event.delta : '')).join(''),
    toolCalls,
    ...(items.length > 0 ? { providerContent: { protocol, items } } : {}),
    ...(usage ? { usage } : {}),
    finishReason: reason,
    ...(raw !== undefined ? { providerReason: raw } : {}),
  };
}
