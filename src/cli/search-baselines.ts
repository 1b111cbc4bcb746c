/**
 * The searches loopctl's deferred mode is measured against, over the same tools, for the
 * eval's reachable-recall table (never used by the library itself):
 *
 * - {@link aiSdkKeywordSearch}: the AI SDK's default `toolSearch()` ranking (ai 7.0.173,
 *   `prepare-tool-search`): query words split like the SDK does (camelCase, then letters and
 *   digits, lower-cased), +2 per distinct word in the name, +1 in the description, positive
 *   scores only, best first (ties keep registry order). A test checks it against the package.
 * - {@link regexReferenceSearch}: what a hosted regex search returns when the model writes the
 *   obvious pattern: the prompt's content words as one case-insensitive alternation (cut at
 *   the 200 characters the hosted search accepts), matched against each tool's name,
 *   description and parameter names and descriptions, ranked by how many alternatives match.
 */
import type { ToolSchema } from '../registry/schema.js';
import { isToken } from '../text/words.js';

/** The AI SDK's tokenizer for its default search. */
function sdkTokens(text: string): string[] {
  return (
    text
      .replace(/([a-z\d])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

const tokensOf = new WeakMap<ToolSchema, { name: string[]; description: string[] }>();

function toolTokens(tool: ToolSchema): { name: string[]; description: string[] } {
  let tokens = tokensOf.get(tool);
  if (!tokens) {
    tokens = { name: sdkTokens(tool.name), description: sdkTokens(tool.description ?? '') };
    tokensOf.set(tool, tokens);
  }
  return tokens;
}

/**
 * The AI SDK's default tool search: the top `k` names.
 *
 * @example
 * aiSdkKeywordSearch('send an email', tools, 5) // ['send_email', …]
 */
export function aiSdkKeywordSearch(query: string, tools: readonly ToolSchema[], k: number): string[] {
  const terms = [...new Set(sdkTokens(query))];
  return tools
    .map((tool) => {
      const { name, description } = toolTokens(tool);
      return {
        name: tool.name,
        score: terms.reduce(
          (score, term) => score + (name.includes(term) ? 2 : 0) + (description.includes(term) ? 1 : 0),
          0,
        ),
      };
    })
    .filter((match) => match.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((match) => match.name);
}

/** The pattern a model would write for `query`: its content words, `a|b|c`, at most 200 characters. */
export function regexPatternFor(query: string): string {
  const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(isToken))];
  let pattern = '';
  for (const word of words) {
    const next = pattern === '' ? word : `${pattern}|${word}`;
    if (next.length > 200) break;
    pattern = next;
  }
  return pattern;
}

const searchTexts = new WeakMap<readonly ToolSchema[], string[]>();

/** Each tool's searchable text (name, description, parameter names and descriptions), lower-cased. */
function textsOf(tools: readonly ToolSchema[]): string[] {
  let texts = searchTexts.get(tools);
  if (!texts) {
    texts = tools.map((tool) => {
      const parts = [tool.name, tool.description ?? ''];
      const properties =
        (tool.parameters as { properties?: Record<string, { description?: unknown }> } | undefined)?.properties ?? {};
      for (const [name, spec] of Object.entries(properties))
        parts.push(name, typeof spec?.description === 'string' ? spec.description : '');
      return parts.join(' ').toLowerCase();
    });
    searchTexts.set(tools, texts);
  }
  return texts;
}

/**
 * The regex reference: the top `k` names for the prompt's pattern.
 *
 * @example
 * regexReferenceSearch('send an email to Kim', tools, 5) // ['send_email', …]
 */
export function regexReferenceSearch(query: string, tools: readonly ToolSchema[], k: number): string[] {
  const words = regexPatternFor(query).split('|').filter(Boolean);
  if (words.length === 0) return [];
  const texts = textsOf(tools);
  return tools
    .map((tool, i) => ({ name: tool.name, score: words.filter((word) => (texts[i] as string).includes(word)).length }))
    .filter((match) => match.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((match) => match.name);
}
