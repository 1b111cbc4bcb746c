/**
 * Anthropic Messages (`POST /v1/messages`) as one protocol object: its upstream (an `x-api-key`,
 * the origin without `/v1`), its request dialect (`anthropic-request.ts`), its search rounds
 * (`messages-rounds.ts`), its error shapes, and its prompt-cache rules: caching follows the
 * client's `cache_control` breakpoints, which move with a narrowed `tools` array.
 */

import { anthropicDialect } from '../anthropic-request.js';
import { appendEdit, tailEdit } from '../body-edits.js';
import type { Json } from '../json-value.js';
import { isObject } from '../json-value.js';
import { messagesSteps } from '../learn/messages-steps.js';
import { messagesRounds } from '../messages-rounds.js';
import { hasBreakpoints } from '../native-search.js';
import { anthropicErrorBody } from '../provider-errors.js';
import type { ProxyProtocol, ProxyUpstream } from '../proxy-protocol.js';

/**
 * The Anthropic upstream (`PROXY_ANTHROPIC_BASE_URL`, an origin): the key in `x-api-key`; it
 * caches only what a breakpoint asks for.
 *
 * @example
 * anthropicUpstream.authorize(headers, env.ANTHROPIC_API_KEY) // headers.get('x-api-key')
 */
export const anthropicUpstream: ProxyUpstream = {
  name: 'anthropic',
  settings: { baseURL: 'anthropicBaseURL', apiKey: 'anthropicApiKey' },
  baseURLVariable: 'PROXY_ANTHROPIC_BASE_URL',
  unreachableHint: 'PROXY_ANTHROPIC_BASE_URL',
  authorize(headers, apiKey) {
    headers.set('x-api-key', apiKey);
  },
  cachesPrefixes: () => false,
};

/** `tool_use` blocks of `rewritten` tools in an assistant message, as calls of `call`. */
function rewriteCalls(entry: Json, rewritten: ReadonlySet<string>, call: string): Json | undefined {
  if (entry.role !== 'assistant' || !Array.isArray(entry.content)) return undefined;
  let changed = false;
  const content = entry.content.map((block: unknown) => {
    if (!isObject(block) || block.type !== 'tool_use' || typeof block.name !== 'string' || !rewritten.has(block.name))
      return block;
    changed = true;
    return { ...block, name: call, input: { name: block.name, arguments: block.input ?? {} } };
  });
  return changed ? { ...entry, content } : undefined;
}

/**
 * Anthropic Messages.
 *
 * @example
 * parseProxyRequest(anthropicMessages, text).breakpoints // whether the client set a cache_control
 */
export const anthropicMessages: ProxyProtocol = {
  name: 'anthropic',
  label: 'Anthropic Messages',
  route: '/v1/messages',
  upstream: anthropicUpstream,
  upstreamPath: '/v1/messages',
  models: { path: '/v1/models', claims: (headers) => headers.has('anthropic-version') },
  dialect: anthropicDialect,
  codec: messagesRounds,
  edits: {
    rewriteCalls,
    append: appendEdit,
    tail: (request, text) => {
      const edit = tailEdit(request, text);
      return edit ? { edit, entries: [] } : { entries: [] };
    },
  },
  errorBody: anthropicErrorBody,
  errorEvent: (type, message) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`,
  toolEntry: (tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }),
  cache: {
    prefixCached: (request) => request.breakpoints === true,
    // Cached only up to the last breakpoint: one on the tools or the system prompt leaves the
    // messages read at full price on every request (a search round included).
    conversationCached: ({ body }) => hasBreakpoints({ cache_control: body.cache_control, messages: body.messages }),
    // Automatic caching (a top-level cache_control) would cache a tail list too.
    cachesTail: ({ body }) => body.cache_control != null,
    movesBreakpoints: true,
  },
  breakpoints: (body, onTools) => onTools || hasBreakpoints(body),
  // A prefilled answer continues the client's own turn: the proxy cannot add turns after it.
  canContinue: (body) => {
    if (!Array.isArray(body.messages)) return true;
    const last = body.messages[body.messages.length - 1] as { role?: unknown } | undefined;
    return last?.role !== 'assistant';
  },
  skip: () => undefined,
  exampleSteps: messagesSteps,
};
