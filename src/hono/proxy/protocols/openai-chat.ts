/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`) as one protocol object: everything the
 * proxy does differently for it is here or in the files this one names (the request dialect in
 * `openai-request.ts`, the search rounds in `chat-rounds.ts`). It also holds the OpenAI
 * upstream and cache rules, which Responses shares.
 */

import { appendEdit, callToolArguments, tailEdit } from '../body-edits.js';
import { chatRounds } from '../chat-rounds.js';
import type { Json } from '../json-value.js';
import { isObject } from '../json-value.js';
import { chatSteps } from '../learn/chat-steps.js';
import { openAIDialect } from '../openai-request.js';
import { openAIErrorBody } from '../provider-errors.js';
import type { CacheRules, ProxyProtocol, ProxyUpstream } from '../proxy-protocol.js';

/**
 * The OpenAI-compatible upstream (`PROXY_OPENAI_BASE_URL`, with its `/v1`): a bearer key, and
 * OpenAI's own API caches every prefix of 1,024 tokens or more, unasked.
 *
 * @example
 * openAIUpstream.cachesPrefixes('https://api.openai.com/v1') // true
 */
export const openAIUpstream: ProxyUpstream = {
  name: 'openai',
  settings: { baseURL: 'openaiBaseURL', apiKey: 'openaiApiKey' },
  baseURLVariable: 'PROXY_OPENAI_BASE_URL',
  unreachableHint: 'MODEL_BASE_URL or PROXY_OPENAI_BASE_URL',
  authorize(headers, apiKey) {
    headers.set('authorization', `Bearer ${apiKey}`);
  },
  cachesPrefixes: (baseURL) => baseURL !== undefined && /^https:\/\/api\.openai\.com(?:\/|$)/i.test(baseURL),
};

/**
 * OpenAI's prompt caching: whole prefixes, cached when the upstream does it by itself or the
 * request sets a `prompt_cache_key`; no breakpoints to move.
 *
 * @example
 * openAICacheRules.prefixCached(request, false) // true when the request sets prompt_cache_key
 */
export const openAICacheRules: CacheRules = {
  prefixCached: (request, upstreamCaches) =>
    upstreamCaches || (typeof request.body.prompt_cache_key === 'string' && request.body.prompt_cache_key !== ''),
  conversationCached: () => true,
  cachesTail: () => false,
  movesBreakpoints: false,
};

/** Chat's `tool_calls` of `rewritten` tools in an assistant message, as calls of `call`. */
function rewriteCalls(entry: Json, rewritten: ReadonlySet<string>, call: string): Json | undefined {
  if (entry.role !== 'assistant' || !Array.isArray(entry.tool_calls)) return undefined;
  let changed = false;
  const calls = entry.tool_calls.map((item: unknown) => {
    if (
      !isObject(item) ||
      !isObject(item.function) ||
      typeof item.function.name !== 'string' ||
      !rewritten.has(item.function.name)
    )
      return item;
    changed = true;
    const args = typeof item.function.arguments === 'string' ? item.function.arguments : '{}';
    return {
      ...item,
      function: { ...item.function, name: call, arguments: callToolArguments(item.function.name, args) },
    };
  });
  return changed ? { ...entry, tool_calls: calls } : undefined;
}

/**
 * OpenAI Chat Completions.
 *
 * @example
 * app.route('/', proxyRoutes({ selectors, protocols: [openAIChat] })) // only /v1/chat/completions and /v1/models
 */
export const openAIChat: ProxyProtocol = {
  name: 'openai',
  label: 'OpenAI Chat Completions',
  route: '/v1/chat/completions',
  upstream: openAIUpstream,
  upstreamPath: '/chat/completions',
  models: { path: '/models' },
  dialect: openAIDialect,
  codec: chatRounds,
  edits: {
    rewriteCalls,
    append: appendEdit,
    // After tool results, a user message of its own: the results stay byte for byte.
    tail: (request, text) => {
      const edit = tailEdit(request, text, 'tool');
      return edit ? { edit, entries: [] } : { entries: [] };
    },
  },
  errorBody: openAIErrorBody,
  errorEvent: (type, message) => `data: ${JSON.stringify({ error: { message, type, param: null, code: type } })}\n\n`,
  toolEntry: (tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }),
  cache: openAICacheRules,
  breakpoints: () => undefined,
  canContinue: () => true,
  skip: () => undefined,
  exampleSteps: chatSteps,
};
