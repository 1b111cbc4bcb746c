import type { Message } from '../message.js';
import { mergeOptions } from '../options.js';
import type { ToolSchema } from '../registry/schema.js';
import type { ModelClient, ModelRequest, ToolChoice } from './client.js';
import { endpointURL, type FetchLike, globalFetch, jsonRequestHeaders, parseJsonObject } from './http.js';
import type { RetryOptions } from './retry.js';
import { assertAdvertised, type ToolNameMap } from './tool-names.js';
import { wireClient } from './wire-client.js';

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
  /**
   * Whether the server understands deferred loading (`defer_loading`, `tool_reference`, the hosted
   * tool searches). Default true; set false for an Anthropic-compatible server without them.
   */
  readonly deferLoading?: boolean;
}

const defaults = {
  baseURL: 'https://api.anthropic.com',
  maxTokens: 1024,
  anthropicVersion: '2023-06-01',
} as const;

const provider = 'anthropic';
const protocol = 'anthropic-messages';
/** The beta that carries deferred loading and the hosted tool searches. */
const TOOL_SEARCH_BETA = 'advanced-tool-use-2025-11-20';

/**
 * A {@link ModelClient} for the Anthropic Messages protocol (`POST {baseURL}/v1/messages`).
 * System messages become the top-level `system`; tool results become `tool_result` blocks
 * in one user message per run of results; assistant calls become `tool_use` blocks. Usage
 * combines `message_start` (input) and `message_delta` (output). Deferred tools ride with
 * `defer_loading: true`, a search's finds become `tool_reference` blocks, and a hosted search's
 * `server_tool_use` / `tool_search_tool_result` blocks come back verbatim in `providerContent`.
 *
 * @example
 * const client = anthropicMessagesClient({ apiKey: env.ANTHROPIC_API_KEY, model: 'claude-haiku-4-5' })
 * const reply = await client.complete({ messages, tools: selection.tools, toolChoice: 'auto' })
 */
export function anthropicMessagesClient(options: AnthropicMessagesOptions): ModelClient {
  const settings = mergeOptions(defaults, options);
  const fetch = settings.fetch ?? globalFetch;
  const url = endpointURL(settings.baseURL, '/v1/messages');

  const deferring = settings.deferLoading !== false;
  const headers = (streaming: boolean, request: ModelRequest): Record<string, string> => {
    const credentials = {
      'anthropic-version': settings.anthropicVersion,
      ...(settings.apiKey ? { 'x-api-key': settings.apiKey } : {}),
    };
    const out = jsonRequestHeaders(streaming, credentials, settings.headers);
    const beta = out['anthropic-beta'];
    if (deferring && (request.deferredTools?.length || request.toolSearch) && !beta?.includes(TOOL_SEARCH_BETA)) {
      out['anthropic-beta'] = beta ? `${beta},${TOOL_SEARCH_BETA}` : TOOL_SEARCH_BETA;
    }
    return out;
  };

  return wireClient({
    provider,
    model: settings.model,
    url,
    fetch,
    retry: settings.retry,
    ...(deferring ? { toolSearch: { deferLoading: true, hosted: ['bm25', 'regex'], maxTools: 10_000 } } : {}),
    headers,
    body: (request, names) => anthropicBody(request, names, settings, deferring),
    // The reply reader loads with the first request, so an app that never calls Anthropic skips it.
    decoder: async (names) => (await import('./anthropic-reply.js')).createAnthropicStreamDecoder(names),
    parse: async (json, names) => (await import('./anthropic-reply.js')).parseAnthropicResponse(json, names),
  });
}

function anthropicBody(
  request: ModelRequest,
  names: ToolNameMap,
  settings: { model: string; maxTokens: number; extraBody?: Readonly<Record<string, unknown>> },
  deferring: boolean,
): Record<string, unknown> {
  const system = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  // A server without deferred loading never sees deferred tools (they stay back) or the beta.
  const deferred = (deferring && request.deferredTools) || [];
  const search = deferring ? request.toolSearch : undefined;
  const tool = (schema: ToolSchema, defer: boolean): Block => ({
    name: names.toWire(schema.name),
    description: schema.description,
    input_schema: schema.parameters,
    ...(defer ? { defer_loading: true } : {}),
  });
  const tools = [
    ...request.tools.map((schema) => tool(schema, false)),
    ...(search && 'hosted' in search
      ? [{ type: `tool_search_tool_${search.hosted}_20251119`, name: `tool_search_tool_${search.hosted}` }]
      : []),
    ...deferred.map((schema) => tool(schema, true)),
  ];
  // A search's finds load as tool_reference blocks only in deferred mode, and only for tools
  // this request declares (a reference to an undeclared tool is refused).
  const declared =
    deferring && request.deferredTools
      ? new Set([...request.tools, ...deferred].map((schema) => schema.name))
      : undefined;
  const hasTools = request.tools.length > 0;
  return {
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    ...(system !== '' ? { system } : {}),
    messages: anthropicMessages(request.messages, names, declared),
    ...(tools.length > 0 ? { tools } : {}),
    ...(hasTools && request.toolChoice !== undefined
      ? { tool_choice: anthropicToolChoice(request.toolChoice, request, names) }
      : {}),
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
function anthropicMessages(
  messages: readonly Message[],
  names: ToolNameMap,
  declared: ReadonlySet<string> | undefined,
): WireMessage[] {
  const out: WireMessage[] = [];
  // The user message collecting tool results, while more may still join it.
  let results: { message: WireMessage; blocks: Block[]; acceptsResults: boolean } | undefined;

  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user': {
        const blocks: Block[] =
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content }]
            : message.content.map((part) => ({ type: 'text', text: part.text }));
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
        const kept = message.providerContent?.protocol === protocol ? message.providerContent.items : [];
        if (calls.length === 0 && kept.length === 0) {
          out.push({ role: 'assistant', content: message.content });
          break;
        }
        out.push({
          role: 'assistant',
          content: [
            // A hosted search's blocks first, as they came (the calls they revealed follow).
            ...kept,
            // The protocol rejects empty text blocks.
            ...(message.content !== '' ? [{ type: 'text', text: message.content }] : []),
            ...calls.map((call) => ({
              type: 'tool_use',
              id: call.id,
              name: names.toWire(call.name),
              input: parseJsonObject(call.arguments),
            })),
          ],
        });
        break;
      }
      case 'tool': {
        const references = declared ? (message.references ?? []).filter((name) => declared.has(name)) : [];
        const block: Block = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content:
            references.length > 0
              ? references.map((name) => ({ type: 'tool_reference', tool_name: names.toWire(name) }))
              : message.content,
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
