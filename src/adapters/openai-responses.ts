/**
 * `loopctl/openai-responses`: a model client for the OpenAI Responses API (deferred tools, a
 * client-executed `tool_search`), and the protocol's wire types.
 */

export type { OpenAIResponsesOptions } from '../model/openai-responses.js';
export { openAIResponsesClient } from '../model/openai-responses.js';
// Listed, not `export type *`: each name's one home stays checkable (test/package/entry-points).
export type {
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesMessageItem,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesRequestBody,
  ResponsesResponse,
  ResponsesStreamEvent,
  ResponsesTool,
  ResponsesToolChoice,
  ResponsesToolSearchCall,
  ResponsesToolSearchOutput,
  ResponsesToolSearchTool,
  ResponsesUsage,
} from '../model/responses-wire.js';
