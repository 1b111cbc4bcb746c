/**
 * One client request as the proxy sees it: the parsed body, where its `tools` array and each
 * tool sit in the original text, what the client forces (`tool_choice`), which tools the
 * conversation already called, and the selection query. Built by {@link parseProxyRequest}.
 */
import { anthropicDialect } from './anthropic-request.js';
import type { Span } from './json-spans.js';
import { arrayElementSpans, topLevelSpans } from './json-spans.js';
import { openAIDialect } from './openai-request.js';
import type { ClientTool, ProxyRequest, WireDialect, WireProtocol } from './proxy-types.js';
import { ProxyRequestError } from './request-error.js';

export { ProxyRequestError } from './request-error.js';

export type { ClientTool, ProxyRequest, ToolChoice, WireDialect, WireProtocol } from './proxy-types.js';

const DIALECTS: Record<WireProtocol, WireDialect> = { openai: openAIDialect, anthropic: anthropicDialect };

/**
 * Parse a client's request body. Throws {@link ProxyRequestError} (400) on malformed JSON, a
 * body that is not an object, a `tools` that is not an array, or a tool without a name.
 *
 * @example
 * const request = parseProxyRequest('openai', await req.text())
 * request.tools.map((tool) => tool.name)
 */
export function parseProxyRequest(protocol: WireProtocol, text: string): ProxyRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ProxyRequestError(400, `the request body is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProxyRequestError(400, 'the request body must be a JSON object');
  }
  const record = body as Record<string, unknown>;
  const dialect = DIALECTS[protocol];
  let toolsSpan: Span | undefined;
  const tools: ClientTool[] = [];
  if (record.tools !== undefined && record.tools !== null) {
    if (!Array.isArray(record.tools)) throw new ProxyRequestError(400, '"tools" must be an array', 'tools');
    toolsSpan = topLevelSpans(text).get('tools');
    const spans = toolsSpan ? arrayElementSpans(text, toolsSpan) : [];
    if (spans.length !== record.tools.length) throw new ProxyRequestError(400, '"tools" could not be read', 'tools');
    for (const [index, entry] of record.tools.entries()) tools.push({ ...dialect.tool(entry, index), span: spans[index] as Span });
    const seen = new Set<string>();
    for (const [index, tool] of tools.entries()) {
      if (seen.has(tool.name)) throw new ProxyRequestError(400, `tools[${index}]: duplicate tool name "${tool.name}"`, `tools[${index}]`);
      seen.add(tool.name);
    }
  }
  return {
    protocol,
    text,
    body: record,
    toolsSpan,
    tools,
    toolChoice: dialect.toolChoice(record),
    called: dialect.calledTools(record),
    ...dialect.context(record),
  };
}
