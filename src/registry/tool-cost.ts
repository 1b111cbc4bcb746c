import type { TokenCounter } from '../tokens/token-counter.js';
import type { ToolSchema } from './schema.js';

/**
 * A tool as an OpenAI-style request renders it: `{"type":"function","function":{…}}`. Token
 * figures count this text, so they measure what the wire carries.
 */
export function renderTool(tool: ToolSchema): string {
  return JSON.stringify({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  });
}

const costs = new WeakMap<TokenCounter, WeakMap<ToolSchema, number>>();

/**
 * Rendered token cost of one tool, memoised per (counter, schema object) so a turn's
 * estimate does not re-tokenise a registry.
 *
 * @example
 * toolCost(weatherTool, approxTokenCounter) // 42
 */
export function toolCost(tool: ToolSchema, counter: TokenCounter): number {
  let perCounter = costs.get(counter);
  if (!perCounter) {
    perCounter = new WeakMap();
    costs.set(counter, perCounter);
  }
  let cost = perCounter.get(tool);
  if (cost === undefined) {
    cost = counter.count(renderTool(tool));
    perCounter.set(tool, cost);
  }
  return cost;
}

/**
 * Rendered token cost of a tool list: what advertising exactly these tools spends.
 *
 * @example
 * toolsCost(selection.tools, approxTokenCounter)
 */
export function toolsCost(tools: readonly ToolSchema[], counter: TokenCounter): number {
  let sum = 0;
  for (const tool of tools) sum += toolCost(tool, counter);
  return sum;
}
