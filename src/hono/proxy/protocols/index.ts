/**
 * The wire protocols the proxy speaks, in route order. The routes are a map over this list
 * (`proxy-routes.ts`): a protocol added here, or passed in `ProxyRoutesOptions.protocols`, is
 * served with no other change.
 */
import type { ProxyProtocol, WireProtocol } from '../proxy-protocol.js';
import { anthropicMessages } from './anthropic-messages.js';
import { openAIChat } from './openai-chat.js';
import { openAIResponses } from './openai-responses.js';

export { anthropicMessages, anthropicUpstream } from './anthropic-messages.js';
export { openAIChat, openAIUpstream } from './openai-chat.js';
export { openAIResponses } from './openai-responses.js';

/**
 * The built-in protocols. The first with a model list answers `GET /v1/models` unless another's
 * headers claim the request.
 *
 * @example
 * PROTOCOLS.map((protocol) => protocol.route) // ['/v1/chat/completions', '/v1/messages', '/v1/responses']
 */
export const PROTOCOLS: readonly ProxyProtocol[] = [openAIChat, anthropicMessages, openAIResponses];

/**
 * A built-in protocol by name.
 *
 * @example
 * protocolNamed('anthropic') === anthropicMessages // true
 */
export function protocolNamed(name: WireProtocol): ProxyProtocol {
  const found = PROTOCOLS.find((protocol) => protocol.name === name);
  if (!found) throw new RangeError(`no proxy protocol is named "${name}"`);
  return found;
}
