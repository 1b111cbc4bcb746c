/**
 * One client request as the proxy sees it: the parsed body, where its `tools` array and each
 * tool sit in the original text, what the client forces (`tool_choice`), which tools the
 * conversation already called, and the selection query. Built by {@link parseProxyRequest}.
 */

import { errorMessage } from '../../describe-error.js';
import type { ToolSchema } from '../../registry/schema.js';
import { approxTokenCounter } from '../../tokens/token-counter.js';
import type { StepParsedBody } from './body-in-steps.js';
import { checkNesting, DEFAULT_MAX_JSON_DEPTH, JsonDepthError } from './json-nesting.js';
import type { Span } from './json-spans.js';
import { arrayElementSpans, topLevelSpans } from './json-spans.js';
import { isToolSearchEntry, referencedTools } from './native-search.js';
import { protocolNamed } from './protocols/index.js';
import type { ClientTool, ProxyProtocol, ProxyRequest, WireDialect, WireProtocol } from './proxy-protocol.js';
import { ProxyRequestError } from './request-error.js';
import type { ToolSet, ToolSetCache } from './tool-set-cache.js';

export type { ClientTool, ProxyRequest, ToolChoice, WireDialect, WireProtocol } from './proxy-protocol.js';
export { ProxyRequestError } from './request-error.js';

/**
 * Parse a client's request body in `protocol` (the object, or a built-in one's name). Throws {@link ProxyRequestError} (400) on malformed JSON, a
 * body that is not an object, a `tools` that is not an array, a tool without a name, or two
 * tools with one name.
 *
 * With a `toolSets` cache (one per protocol: the dialects read tools differently), a `tools` array seen before is recognised in place and neither
 * parsed nor scanned again: only the rest of the body is parsed, with the array replaced by
 * `[]`. That rest parsing as JSON, with the cached (already valid) array in a value position,
 * means the whole body is valid JSON, so the outcome is the same as a full parse, errors
 * included (any failure re-runs the full parse for its message). New tool sets are added.
 * `parsed` is the body already parsed in steps (a large one, `parseObjectInSteps`); it stands
 * for the parse. A body that nests arrays and objects deeper than `maxDepth` is a 400 before
 * any parse, as `parseObjectInSteps` refuses it for a large body, so both paths agree.
 *
 * @example
 * const request = parseProxyRequest('openai', await req.text(), toolSetCache())
 * request.tools.map((tool) => tool.name)
 */
export function parseProxyRequest(
  protocolOrName: ProxyProtocol | WireProtocol,
  text: string,
  toolSets?: ToolSetCache,
  parsed?: StepParsedBody,
  maxDepth = DEFAULT_MAX_JSON_DEPTH,
): ProxyRequest {
  const protocol = typeof protocolOrName === 'string' ? protocolNamed(protocolOrName) : protocolOrName;
  const { dialect } = protocol;
  if (!parsed) checkDepth(text, maxDepth);
  const known = toolSets && !parsed ? parseKnownTools(protocol, text, dialect, toolSets) : undefined;
  if (known) return known;
  const record = parsed?.record ?? parseObject(text);
  let spans: Map<string, Span> | undefined;
  let toolSet: ToolSet | undefined;
  if (record.tools !== undefined && record.tools !== null) {
    if (!Array.isArray(record.tools)) throw new ProxyRequestError(400, '"tools" must be an array', 'tools');
    spans = parsed?.spans ?? topLevelSpans(text);
    const toolsSpan = spans.get('tools');
    if (!toolsSpan) throw new ProxyRequestError(400, '"tools" could not be read', 'tools');
    const hit = parsed ? toolSets?.match(text, toolsSpan.start) : undefined;
    if (hit && hit.toolsText.length === toolsSpan.end - toolsSpan.start) toolSet = hit.set;
    else {
      const toolsText = text.slice(toolsSpan.start, toolsSpan.end);
      toolSet = readToolSet(toolsText, record.tools, dialect);
      toolSets?.add(toolsText, toolSet);
    }
  }
  return assemble(protocol, dialect, text, record, spans, toolSet);
}

/** The request when its `tools` text is a cached one and the rest is valid JSON; else undefined. */
function parseKnownTools(
  protocol: ProxyProtocol,
  text: string,
  dialect: WireDialect,
  toolSets: ToolSetCache,
): ProxyRequest | undefined {
  let hit: { readonly toolsText: string; readonly set: ToolSet } | undefined;
  const spans = topLevelSpans(text, (key, start) => {
    if (key !== 'tools') return undefined;
    hit = toolSets.match(text, start);
    return hit ? start + hit.toolsText.length : undefined;
  });
  const span = spans.get('tools');
  // Only the last `tools` member counts (as in JSON.parse), and it must be the cached one.
  if (!span || !hit || span.end - span.start !== hit.toolsText.length || text.charCodeAt(span.start) !== 0x5b)
    return undefined;
  if (text.slice(span.start, span.end) !== hit.toolsText) return undefined;
  let record: Record<string, unknown>;
  try {
    record = parseObject(`${text.slice(0, span.start)}[]${text.slice(span.end)}`);
  } catch {
    return undefined; // the full parse reports it, with positions in the client's own text
  }
  if (!Array.isArray(record.tools) || record.tools.length !== 0) return undefined;
  return assemble(protocol, dialect, text, record, spans, hit.set);
}

// One linear pass before JSON.parse: a deep body fails here at its first level too many.
function checkDepth(text: string, maxDepth: number): void {
  try {
    checkNesting(text, maxDepth);
  } catch (error) {
    if (error instanceof JsonDepthError) throw new ProxyRequestError(400, error.message);
    throw error;
  }
}

function parseObject(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ProxyRequestError(400, `the request body is not valid JSON (${errorMessage(error)})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProxyRequestError(400, 'the request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** Name, kind, schema, relative span and cost of every entry of a `tools` array. */
function readToolSet(toolsText: string, entries: readonly unknown[], dialect: WireDialect): ToolSet {
  const spans = arrayElementSpans(toolsText, { start: 0, end: toolsText.length });
  if (spans.length !== entries.length) throw new ProxyRequestError(400, '"tools" could not be read', 'tools');
  const tools: ClientTool[] = entries.map((entry, index) => ({
    ...dialect.tool(entry, index),
    span: spans[index] as Span,
  }));
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (tool.name === '') continue; // a typed entry without a name
    if (seen.has(tool.name))
      throw new ProxyRequestError(400, `tools[${index}]: duplicate tool name "${tool.name}"`, `tools[${index}]`);
    seen.add(tool.name);
  }
  return {
    tools,
    all: tools.filter((tool) => tool.selectable).map((tool) => tool.schema as ToolSchema),
    costs: tools.map((tool) => approxTokenCounter.count(toolsText.slice(tool.span.start, tool.span.end))),
    nativeSearch: tools.some((tool) => tool.deferred) || entries.some(isToolSearchEntry),
    breakpoints: tools.some((tool) => tool.cacheControl !== undefined),
  };
}

function assemble(
  protocol: ProxyProtocol,
  dialect: WireDialect,
  text: string,
  record: Record<string, unknown>,
  spans: Map<string, Span> | undefined,
  toolSet: ToolSet | undefined,
): ProxyRequest {
  const toolsSpan = spans?.get('tools');
  const offset = toolsSpan?.start ?? 0;
  const conversation = record[dialect.conversationKey];
  const conversationSpan = spans?.get(dialect.conversationKey);
  return {
    protocol,
    text,
    body: record,
    toolsSpan,
    tools: (toolSet?.tools ?? []).map((tool) => ({
      ...tool,
      span: { start: tool.span.start + offset, end: tool.span.end + offset },
    })),
    selectable: toolSet?.all ?? [],
    costs: toolSet?.costs ?? [],
    toolChoice: dialect.toolChoice(record),
    called: dialect.calledTools(record),
    referenced: toolSet ? referencedTools(conversation) : new Set(),
    nativeSearch: toolSet?.nativeSearch ?? false,
    // A warm request's record holds `tools: []`: the tool set says whether its tools carry a breakpoint.
    breakpoints: protocol.breakpoints(record, toolSet?.breakpoints ?? false),
    stream: record.stream === true,
    conversationSpan,
    ...dialect.context(record),
  };
}
