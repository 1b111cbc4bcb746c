/**
 * One client request as the proxy sees it: the parsed body, where its `tools` array and each
 * tool sit in the original text, what the client forces (`tool_choice`), which tools the
 * conversation already called, and the selection query. Built by {@link parseProxyRequest}.
 */
import type { Message } from '../../message.js';
import type { ToolSchema } from '../../registry/schema.js';
import { anthropicDialect } from './anthropic-request.js';
import type { Span } from './json-spans.js';
import { arrayElementSpans, topLevelSpans } from './json-spans.js';
import { openAIDialect } from './openai-request.js';
import { ProxyRequestError } from './request-error.js';

export { ProxyRequestError } from './request-error.js';

/** The two wire protocols the proxy speaks. */
export type WireProtocol = 'openai' | 'anthropic';

/** One entry of the client's `tools` array. */
export interface ClientTool {
  readonly name: string;
  /** A plain function tool the selectors can rank; other kinds (server tools…) are always kept. */
  readonly selectable: boolean;
  /** What selectors see (selectable tools only). */
  readonly schema: ToolSchema | undefined;
  /** The entry's exact text in the request. */
  readonly span: Span;
  /** Anthropic: the entry's `cache_control` value, when it has one. */
  readonly cacheControl: unknown;
}

/** What `tool_choice` asks of the model. */
export type ToolChoice =
  | { readonly kind: 'auto' | 'none' | 'required' }
  /** Specific tools must stay declared (`required` when the model must call one of them). */
  | { readonly kind: 'named'; readonly names: readonly string[]; readonly required: boolean };

/** A parsed client request. */
export interface ProxyRequest {
  readonly protocol: WireProtocol;
  /** The body exactly as the client sent it. */
  readonly text: string;
  readonly body: Readonly<Record<string, unknown>>;
  /** Where the `tools` array sits; undefined when the request has none. */
  readonly toolsSpan: Span | undefined;
  readonly tools: readonly ClientTool[];
  readonly toolChoice: ToolChoice;
  /** Names of tools the conversation has already called. */
  readonly called: ReadonlySet<string>;
  /** The selection query: the latest user message's text (see `latest-user-text.ts`). */
  readonly query: string | undefined;
  /** 1 + the assistant turns since that message. */
  readonly turn: number;
  /** The conversation as loopctl messages, for selectors that read it. */
  readonly conversation: readonly Message[];
}

/** The protocol-specific half of parsing. */
export interface WireDialect {
  /** Name, kind and schema of `tools[index]`; throws {@link ProxyRequestError} without a name. */
  tool(entry: unknown, index: number): Omit<ClientTool, 'span'>;
  toolChoice(body: Readonly<Record<string, unknown>>): ToolChoice;
  calledTools(body: Readonly<Record<string, unknown>>): Set<string>;
  /** Selection query, turn and conversation. */
  context(body: Readonly<Record<string, unknown>>): { query: string | undefined; turn: number; conversation: Message[] };
}

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
