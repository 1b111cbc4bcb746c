/**
 * `loopctl/openai-responses`: a model client for the OpenAI Responses API (deferred tools, a
 * client-executed `tool_search`), and the protocol's wire types.
 */
export { openAIResponsesClient } from '../model/openai-responses.js';
export type { OpenAIResponsesOptions } from '../model/openai-responses.js';
export type * from '../model/responses-wire.js';
