/**
 * `loopctl/ai-sdk`: loopctl's ranking inside the Vercel AI SDK (`ai` ≥ 7). Two doors, one
 * search function behind both:
 *
 * - {@link toolSearchFunction}: the `search` callback of the SDK's `toolSearch()`, for tools
 *   marked `deferLoading: true`: the SDK hands it the query and the deferred tools' names and
 *   descriptions, and loopctl's selector ranks them (the SDK's default is keyword overlap).
 * - {@link activeToolsStep}: a `prepareStep` that sets `activeTools` from a selector, for apps
 *   that do not defer: each step offers only what the selector picked for the prompt.
 *
 * Nothing here imports `ai`: the shapes are the SDK's, written structurally.
 */
import type { ToolSchema } from '../registry/schema.js';
import { runSelection } from '../select/run-selection.js';
import type { AsyncToolSelector } from '../select/selector.js';
import { checkK, queryOf, rankNames, stableList, type ToolSearchAdapterOptions } from './search-door.js';

/** What the SDK passes a `toolSearch` search callback. */
export interface AiSdkSearchInput {
  readonly query: string;
  readonly tools: readonly { readonly name: string; readonly description?: string }[];
}

/** Options for {@link toolSearchFunction}. */
export interface ToolSearchFunctionOptions extends ToolSearchAdapterOptions {
  /**
   * Full schemas by name (e.g. your registry's `schemas()`), so the ranking also sees each
   * tool's parameters; the SDK passes only names and descriptions.
   */
  readonly schemas?: readonly ToolSchema[];
}

/**
 * A `search` callback for the AI SDK's `toolSearch()`, ranked by a loopctl selector (BM25
 * without one). It returns the best `k` names (default 5) among the deferred tools the SDK
 * offers; the SDK keeps at most its `maxResults` of them. A blank query throws (the SDK turns
 * that into a tool error the model reads).
 *
 * @example
 * import { generateText, stepCountIs, tool, toolSearch } from 'ai'
 * import { toolSearchFunction } from 'loopctl/ai-sdk'
 *
 * const result = await generateText({
 *   model,
 *   tools: {
 *     toolSearch: toolSearch({ search: toolSearchFunction({ selector: hybrid }) }),
 *     send_email: tool({ description: 'Send an email', inputSchema, deferLoading: true, execute }),
 *   },
 *   stopWhen: stepCountIs(5),
 *   prompt: 'Email Kim the report',
 * })
 */
export function toolSearchFunction(
  options: ToolSearchFunctionOptions = {},
): (input: AiSdkSearchInput) => Promise<string[]> {
  checkK(options.k);
  const known = options.schemas ? new Map(options.schemas.map((schema) => [schema.name, schema])) : undefined;
  return async ({ query, tools }) => {
    const text = queryOf({ query });
    if (typeof text !== 'string') throw new TypeError(text.error);
    const candidates = tools.map(
      (tool) => known?.get(tool.name) ?? { name: tool.name, description: tool.description ?? '', parameters: {} },
    );
    return rankNames(text, candidates, options);
  };
}

/** An AI SDK tool as {@link activeToolsStep} reads it: its description and input schema. */
export interface AiSdkTool {
  readonly description?: string | ((...args: never[]) => unknown);
  readonly inputSchema?: unknown;
}

/** Options for {@link activeToolsStep}. */
export interface ActiveToolsStepOptions<NAME extends string> {
  /** Picks the tools for the prompt. */
  readonly selector: AsyncToolSelector;
  /** The same tools the call passes as `tools`. */
  readonly tools: Readonly<Record<NAME, AiSdkTool>>;
  /** Names offered on every step whatever the selector picks (e.g. a `toolSearch`). */
  readonly always?: readonly NAME[];
}

/** What the SDK passes `prepareStep` (the parts read here). */
export interface AiSdkStepInput {
  readonly messages: readonly { readonly role: string; readonly content: unknown }[];
  readonly abortSignal?: AbortSignal;
}

/**
 * A `prepareStep` that narrows `activeTools` to a loopctl selector's pick for the call's
 * latest user message (selected once per prompt: every step of one call offers the same
 * tools, so the prompt prefix holds). A selector that fails or falls open offers every tool.
 *
 * @example
 * import { generateText } from 'ai'
 * import { activeToolsStep } from 'loopctl/ai-sdk'
 *
 * await generateText({ model, tools, prepareStep: activeToolsStep({ selector: new Bm25Selector(), tools }), prompt })
 */
export function activeToolsStep<NAME extends string>(
  options: ActiveToolsStepOptions<NAME>,
): (step: AiSdkStepInput) => Promise<{ activeTools: NAME[] }> {
  const names = Object.keys(options.tools) as NAME[];
  const always = new Set<string>(options.always ?? []);
  let last: { prompt: string; picked: NAME[] } | undefined;
  let schemas: ToolSchema[] | undefined;
  return async ({ messages, abortSignal }) => {
    const prompt = latestUserText(messages);
    if (last?.prompt === prompt) return { activeTools: last.picked };
    schemas ??= stableList(await Promise.all(names.map((name) => schemaOf(name, options.tools[name]))));
    const ctx = { turn: 1, latestUserMessage: prompt, conversation: [{ role: 'user' as const, content: prompt }] };
    const selection = await runSelection(options.selector, ctx, schemas, abortSignal ? { signal: abortSignal } : {});
    const chosen = new Set(selection.names);
    const picked = names.filter((name) => chosen.has(name) || always.has(name));
    last = { prompt, picked };
    return { activeTools: picked };
  };
}

/** A tool's schema: its description (a string one), and its JSON Schema when the SDK exposes one. */
async function schemaOf(name: string, tool: AiSdkTool): Promise<ToolSchema> {
  const description = typeof tool.description === 'string' ? tool.description : '';
  const json = (tool.inputSchema as { jsonSchema?: unknown } | undefined)?.jsonSchema;
  let parameters: Record<string, unknown> = {};
  try {
    const resolved = await json;
    if (resolved && typeof resolved === 'object') parameters = resolved as Record<string, unknown>;
  } catch {
    // A schema that cannot be converted still ranks by name and description.
  }
  return { name, description, parameters };
}

/** The text of the last user message (string content, or its text parts). */
function latestUserText(messages: AiSdkStepInput['messages']): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (Array.isArray(message.content)) {
      return message.content
        .filter(
          (part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string',
        )
        .map((part) => part.text)
        .join('\n');
    }
  }
  return '';
}
