/**
 * `loopctl/openai-responses`: a model client for the OpenAI Responses API (deferred tools, a
 * client-executed `tool_search`), and the protocol's wire types.
 */
export { openAIResponsesClient } from '../model/openai-responses.js';
export type { OpenAIResponsesOptions } from '../model/openai-responses.js';
// Listed, not `export type *`: each name's one home stays checkable (test/package/entry-points).
export type {
  ResponsesFunctionTool,
  ResponsesToolSearchTool,
  ResponsesTool,
  ResponsesMessageItem,
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ResponsesToolSearchCall,
  ResponsesToolSearchOutput,
  ResponsesInputItem,
  ResponsesToolChoice,
  ResponsesRequestBody,
  ResponsesUsage,
  ResponsesOutputMessage,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesStreamEvent,
} from '../model/responses-wire.js';
