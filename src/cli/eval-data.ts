import { readFileSync } from 'node:fs';
import type { ToolSchema } from '../registry/schema.js';
import { withToolNeeds } from '../registry/tool-needs.js';
import { splitOf } from './split.js';

/** One labelled query of an eval set. */
export interface EvalCase {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
}

export type SplitName = 'dev' | 'test' | 'all';

/**
 * Read a `tools.json` registry, checking names are unique. A tool may carry `"needs": [names]`,
 * the tools it needs first (declared links, see `withToolNeeds`); they travel with the list.
 */
export function loadTools(file: string): ToolSchema[] {
  const tools = JSON.parse(readFileSync(file, 'utf8')) as (ToolSchema & { needs?: unknown })[];
  if (!Array.isArray(tools)) throw new Error(`${file}: expected a JSON array of tools`);
  const seen = new Set<string>();
  const needs: Record<string, readonly string[]> = Object.create(null);
  const list = tools.map((tool, i) => {
    if (!tool || typeof tool.name !== 'string') throw new Error(`${file}: tool ${i} has no name`);
    if (seen.has(tool.name)) throw new Error(`${file}: duplicate tool name "${tool.name}"`);
    seen.add(tool.name);
    if (tool.needs !== undefined) {
      if (!Array.isArray(tool.needs) || tool.needs.some((name) => typeof name !== 'string')) {
        throw new Error(`${file}: tool "${tool.name}": "needs" must be a list of tool names`);
      }
      needs[tool.name] = tool.needs as string[];
    }
    return { name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? {} };
  });
  return Object.keys(needs).length > 0 ? withToolNeeds(list, needs) : list;
}

/** Read `cases.jsonl`, keeping the cases of one split. */
export function loadCases(file: string, split: SplitName = 'all'): EvalCase[] {
  const cases: EvalCase[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let parsed: EvalCase;
      try {
        parsed = JSON.parse(line) as EvalCase;
      } catch {
        throw new Error(`${file}:${i + 1}: not valid JSON`);
      }
      if (typeof parsed.query !== 'string' || !Array.isArray(parsed.expected)) {
        throw new Error(`${file}:${i + 1}: a case needs "query" and "expected"`);
      }
      const id = String(parsed.id ?? i);
      if (split === 'all' || splitOf(id) === split) cases.push({ id, query: parsed.query, expected: parsed.expected });
    });
  return cases;
}
