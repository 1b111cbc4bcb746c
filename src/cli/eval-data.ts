import { readFileSync } from 'node:fs';
import type { ToolSchema } from '../registry/schema.js';
import { splitOf } from './split.js';

/** One labelled query of an eval set. */
export interface EvalCase {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
}

export type SplitName = 'dev' | 'test' | 'all';

/** Read a `tools.json` registry, checking names are unique. */
export function loadTools(file: string): ToolSchema[] {
  const tools = JSON.parse(readFileSync(file, 'utf8')) as ToolSchema[];
  if (!Array.isArray(tools)) throw new Error(`${file}: expected a JSON array of tools`);
  const seen = new Set<string>();
  return tools.map((tool, i) => {
    if (!tool || typeof tool.name !== 'string') throw new Error(`${file}: tool ${i} has no name`);
    if (seen.has(tool.name)) throw new Error(`${file}: duplicate tool name "${tool.name}"`);
    seen.add(tool.name);
    return { name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? {} };
  });
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
