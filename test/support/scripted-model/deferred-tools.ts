/**
 * Deferred loading as the providers apply it: which tools a request declares deferred, which
 * the model can see (not deferred, or referenced by a search result earlier in the
 * conversation), and the hosted searches Anthropic runs itself (BM25 over a tool's name,
 * description and parameters; a case-insensitive regex, at most 200 characters). The searches
 * are the server's own, deliberately not loopctl's, so a test compares two implementations.
 */
import { isObject } from './wire-plan.js';

/** A declared tool as a search sees it. */
export interface DeclaredTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  readonly deferred: boolean;
}

/** What one request declares and reveals. */
export interface RequestSurface {
  readonly tools: readonly DeclaredTool[];
  /** Names the model can see: not deferred, or referenced earlier. */
  readonly seen: ReadonlySet<string>;
  readonly deferred: readonly string[];
  /** The hosted search the request declares (Anthropic). */
  readonly hosted: 'bm25' | 'regex' | undefined;
  /** Responses: a client-executed `tool_search` tool is declared. */
  readonly clientSearch: boolean;
}

/** The most references one hosted search returns (the hosted searches return 3–5). */
export const HOSTED_RESULTS = 5;

/** The surface of an Anthropic Messages body. */
export function anthropicSurface(body: Record<string, unknown>): RequestSurface {
  const tools: DeclaredTool[] = [];
  let hosted: RequestSurface['hosted'];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(tool)) continue;
    if (typeof tool.type === 'string' && tool.type.startsWith('tool_search_tool_')) {
      hosted = tool.type.includes('regex') ? 'regex' : 'bm25';
      continue;
    }
    if (typeof tool.name !== 'string' || (tool.type !== undefined && tool.type !== 'custom')) continue;
    tools.push({
      name: tool.name,
      description: String(tool.description ?? ''),
      parameters: tool.input_schema,
      deferred: tool.defer_loading === true,
    });
  }
  const referenced = new Set<string>();
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) for (const name of anthropicReferences(block)) referenced.add(name);
  }
  return surface(tools, referenced, hosted, false);
}

/** The `tool_reference` names one Anthropic content block carries (tool_result or tool_search_tool_result). */
export function anthropicReferences(block: unknown): string[] {
  if (!isObject(block)) return [];
  const references =
    block.type === 'tool_result' && Array.isArray(block.content)
      ? block.content
      : block.type === 'tool_search_tool_result' &&
          isObject(block.content) &&
          Array.isArray(block.content.tool_references)
        ? block.content.tool_references
        : [];
  return references
    .filter((ref): ref is Record<string, unknown> => isObject(ref) && ref.type === 'tool_reference')
    .map((ref) => String(ref.tool_name));
}

/** The surface of a Responses body. */
export function responsesSurface(body: Record<string, unknown>): RequestSurface {
  const { tools, clientSearch } = flaggedTools(body);
  const referenced = new Set<string>();
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (!isObject(item) || item.type !== 'tool_search_output' || !Array.isArray(item.tools)) continue;
    for (const tool of item.tools) if (isObject(tool) && typeof tool.name === 'string') referenced.add(tool.name);
  }
  return surface(tools, referenced, undefined, clientSearch);
}

/** A surface from declared tools and the names a search result loaded (shared by the wires). */
export function surface(
  tools: DeclaredTool[],
  referenced: ReadonlySet<string>,
  hosted: RequestSurface['hosted'],
  clientSearch: boolean,
): RequestSurface {
  const seen = new Set(tools.filter((tool) => !tool.deferred || referenced.has(tool.name)).map((tool) => tool.name));
  // A loaded tool of a found definition (Responses injects found tools that need not be declared).
  for (const name of referenced) if (!tools.some((tool) => tool.name === name)) seen.add(name);
  return {
    tools,
    seen,
    deferred: tools.filter((tool) => tool.deferred).map((tool) => tool.name),
    hosted,
    clientSearch,
  };
}

/** What a hosted search answers: tool names, or an error code as Anthropic sends it. */
export type HostedAnswer =
  | { readonly found: readonly string[] }
  | { readonly error: 'invalid_tool_input'; readonly message: string };

/** Run Anthropic's hosted search over the request's deferred tools. */
export function runHostedSearch(
  kind: 'bm25' | 'regex',
  input: { query?: string; pattern?: string },
  tools: readonly DeclaredTool[],
): HostedAnswer {
  const deferred = tools.filter((tool) => tool.deferred);
  if (kind === 'regex') {
    const pattern = input.pattern ?? '';
    if (pattern === '' || pattern.length > 200)
      return { error: 'invalid_tool_input', message: 'pattern must be 1 to 200 characters' };
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'i');
    } catch (error) {
      return { error: 'invalid_tool_input', message: `invalid regular expression: ${String(error)}` };
    }
    return {
      found: deferred
        .filter((tool) => re.test(searchText(tool)))
        .slice(0, HOSTED_RESULTS)
        .map((tool) => tool.name),
    };
  }
  const query = (input.query ?? '').trim();
  if (query === '') return { error: 'invalid_tool_input', message: 'query must not be empty' };
  return { found: bm25(query, deferred).slice(0, HOSTED_RESULTS) };
}

/** A tool's searchable text: its name, description, and parameter names and descriptions. */
function searchText(tool: DeclaredTool): string {
  const params: string[] = [];
  const properties =
    isObject(tool.parameters) && isObject(tool.parameters.properties) ? tool.parameters.properties : {};
  for (const [name, spec] of Object.entries(properties))
    params.push(name, isObject(spec) && typeof spec.description === 'string' ? spec.description : '');
  return [tool.name, tool.description, ...params].join(' ');
}

function terms(text: string): string[] {
  return (
    text
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  ).filter((term) => term.length > 1);
}

/** Okapi BM25 (k1 1.2, b 0.75), names of tools with a positive score, best first. */
function bm25(query: string, tools: readonly DeclaredTool[]): string[] {
  const docs = tools.map((tool) => terms(searchText(tool)));
  const avg = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  const wanted = [...new Set(terms(query))];
  return docs
    .map((doc, i) => {
      let score = 0;
      for (const term of wanted) {
        const tf = doc.filter((t) => t === term).length;
        if (tf === 0) continue;
        const n = df.get(term) ?? 0;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * doc.length) / avg));
      }
      return { name: (tools[i] as DeclaredTool).name, score };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((hit) => hit.name);
}

/**
 * The function tools of a request whose deferred tools carry `defer_loading` (Responses,
 * Gemini's Interactions), and whether it declares a client-executed `tool_search`.
 */
export function flaggedTools(body: Record<string, unknown>): { tools: DeclaredTool[]; clientSearch: boolean } {
  const tools: DeclaredTool[] = [];
  let clientSearch = false;
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(tool)) continue;
    if (tool.type === 'tool_search') clientSearch ||= tool.execution === 'client';
    else if (tool.type === 'function' && typeof tool.name === 'string') {
      tools.push({
        name: tool.name,
        description: String(tool.description ?? ''),
        parameters: tool.parameters,
        deferred: tool.defer_loading === true,
      });
    }
  }
  return { tools, clientSearch };
}
