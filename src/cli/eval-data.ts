import { readFileSync } from 'node:fs';
import { nameRecord } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import { readToolDefinition } from '../registry/tool-definition.js';
import { withToolNeeds } from '../registry/tool-needs.js';
import { splitOf } from './split.js';

/** One labelled query of an eval set. */
export interface EvalCase {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
  /** The case's line in its file (1-based), for messages about it. */
  readonly line?: number;
}

export type SplitName = 'dev' | 'test' | 'all';

/** Problems listed before the rest are counted. */
const MAX_TOOL_ERRORS = 12;

/**
 * Read a `tools.json` registry: an array of tools (or `{ "tools": [...] }`) in any shape a
 * `ToolRegistry` takes (loopctl's, OpenAI's, Anthropic's, MCP's), each read by the registry's
 * own `readToolDefinition`, names unique. So the CLI takes exactly the files the library takes.
 * A tool may carry `"needs": [names]`, the tools it needs first (declared links, see
 * `withToolNeeds`); they travel with the list. Throws listing every problem with its path.
 */
export function loadTools(file: string): ToolSchema[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${file}: not valid JSON (${error.message})`);
    throw error;
  }
  const list = Array.isArray(json)
    ? json
    : Array.isArray((json as { tools?: unknown } | null)?.tools)
      ? (json as { tools: unknown[] }).tools
      : undefined;
  if (!list) throw new Error(`${file}: expected an array of tools, or an object with a "tools" array`);
  const where = Array.isArray(json) ? '' : 'tools';
  const errors: string[] = [];
  const tools: ToolSchema[] = [];
  const seen = new Map<string, number>();
  const needs = nameRecord<readonly string[]>();
  list.forEach((item: unknown, index) => {
    const at = `${where}[${index}]`;
    const read = readToolDefinition(item);
    if (!read.ok) {
      for (const error of read.errors) errors.push(error.startsWith('must') ? `${at}: ${error}` : `${at}.${error}`);
      return;
    }
    const first = seen.get(read.tool.name);
    if (first !== undefined) {
      errors.push(`${at}.name: "${read.tool.name}" is already used by ${where}[${first}]`);
      return;
    }
    const declared = (item as { needs?: unknown }).needs;
    if (declared !== undefined) {
      if (!Array.isArray(declared) || declared.some((name) => typeof name !== 'string' || name === '')) {
        errors.push(`${at}.needs: must be a list of tool names`);
        return;
      }
      needs[read.tool.name] = declared as string[];
    }
    seen.set(read.tool.name, index);
    tools.push(read.tool);
  });
  if (errors.length > 0) {
    const shown =
      errors.length > MAX_TOOL_ERRORS
        ? [...errors.slice(0, MAX_TOOL_ERRORS), `…and ${errors.length - MAX_TOOL_ERRORS} more`]
        : errors;
    throw new Error(`${file}: ${shown.length === 1 ? shown[0] : `\n  ${shown.join('\n  ')}`}`);
  }
  return Object.keys(needs).length > 0 ? withToolNeeds(tools, needs) : tools;
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
      if (split === 'all' || splitOf(id) === split)
        cases.push({ id, query: parsed.query, expected: parsed.expected, line: i + 1 });
    });
  return cases;
}
