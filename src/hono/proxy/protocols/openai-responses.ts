/**
 * OpenAI Responses (`POST /v1/responses`) as one protocol object: the OpenAI upstream, error
 * body and cache rules (from `openai-chat.ts`), its own request dialect
 * (`responses-request.ts`), search rounds (`responses-rounds.ts`), stream error event, and an
 * `input` that may be a string or a list of items. A request that continues a stored response
 * (`previous_response_id`) holds its conversation upstream, so its tools are left as they are.
 */

import { appendEdit, callToolArguments } from '../body-edits.js';
import type { Json } from '../json-value.js';
import { responsesSteps } from '../learn/responses-steps.js';
import { openAIErrorBody } from '../provider-errors.js';
import type { ProxyProtocol, ProxyRequest } from '../proxy-protocol.js';
import { responsesDialect } from '../responses-request.js';
import { responsesRounds } from '../responses-rounds.js';
import { openAICacheRules, openAIUpstream } from './openai-chat.js';

/** `function_call` items of `rewritten` tools, as calls of `call`. */
function rewriteCalls(entry: Json, rewritten: ReadonlySet<string>, call: string): Json | undefined {
  if (entry.type !== 'function_call' || typeof entry.name !== 'string' || !rewritten.has(entry.name)) return undefined;
  const args = typeof entry.arguments === 'string' ? entry.arguments : '{}';
  return { ...entry, name: call, arguments: callToolArguments(entry.name, args) };
}

/** The input with `entries` appended; a string `input` becomes a one-message list first. */
function append(request: ProxyRequest, entries: readonly string[]) {
  const { conversationSpan, body } = request;
  if (entries.length === 0 || !conversationSpan || typeof body.input !== 'string') return appendEdit(request, entries);
  const user = JSON.stringify({ role: 'user', content: body.input });
  return { start: conversationSpan.start, end: conversationSpan.end, text: `[${user},${entries.join(',')}]` };
}

/**
 * A Responses input item carrying `text` (a developer message), appended after the client's input.
 *
 * @example
 * tailItem('[loopctl] More tools …') // '{"type":"message","role":"developer",…}'
 */
export function tailItem(text: string): string {
  return JSON.stringify({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
}

/**
 * OpenAI Responses.
 *
 * @example
 * openAIResponses.skip({ previous_response_id: 'resp_1' }) // 'previous-response'
 */
export const openAIResponses: ProxyProtocol = {
  name: 'responses',
  label: 'OpenAI Responses',
  route: '/v1/responses',
  upstream: openAIUpstream,
  upstreamPath: '/responses',
  dialect: responsesDialect,
  codec: responsesRounds,
  // The note is an input item of its own, after the client's input.
  edits: { rewriteCalls, append, tail: (_request, text) => ({ entries: [tailItem(text)] }) },
  errorBody: openAIErrorBody,
  errorEvent: (type, message) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', code: type, message, param: null, sequence_number: 0 })}\n\n`,
  toolEntry: (tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }),
  cache: openAICacheRules,
  breakpoints: () => undefined,
  canContinue: () => true,
  skip: (body) => (typeof body.previous_response_id === 'string' ? 'previous-response' : undefined),
  exampleSteps: responsesSteps,
};
