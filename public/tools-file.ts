/**
 * Reads a user's `tools.json`: a list of tool schemas in loopctl's own shape or the shapes
 * providers use (OpenAI `{type:'function',function:{…}}`, Anthropic `input_schema`, MCP
 * `inputSchema`), at the top level or under `tools`, each read by the library's
 * `readToolDefinition` (what `ToolRegistry.register` takes, names included). Every problem is
 * reported with its path, so a bad file explains itself instead of half-loading.
 */
import type { ToolSchema } from '../src/index.js';
import { readToolDefinition } from '../src/selector-kit.js';

/** What parsing a file gives: tools, or every error found (never both). */
export type ToolsFileResult =
  | { readonly ok: true; readonly tools: readonly ToolSchema[] }
  | { readonly ok: false; readonly errors: readonly string[] };

/** More than this many tools is refused: the page embeds each one. */
export const MAX_TOOLS = 2_000;

/** Errors listed before the rest are summarised. */
const MAX_ERRORS = 12;

/**
 * Parse and validate the text of a tools file.
 *
 * @example
 * const result = parseToolsFile('[{"name":"get_weather","description":"Weather","parameters":{"type":"object"}}]')
 * if (result.ok) result.tools[0].name // 'get_weather'
 */
export function parseToolsFile(text: string): ToolsFileResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, errors: [`not valid JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  return validateTools(json);
}

/**
 * Validate an already-parsed value as a tool list.
 *
 * @example
 * validateTools({ tools: [] }) // { ok: false, errors: ['the file has no tools'] }
 */
export function validateTools(json: unknown): ToolsFileResult {
  const list = Array.isArray(json) ? json : isRecord(json) && Array.isArray(json.tools) ? json.tools : undefined;
  const where = Array.isArray(json) ? '' : 'tools';
  if (!list) {
    return { ok: false, errors: ['expected an array of tools, or an object with a "tools" array'] };
  }
  if (list.length === 0) return { ok: false, errors: ['the file has no tools'] };
  if (list.length > MAX_TOOLS)
    return { ok: false, errors: [`${list.length} tools is more than the demo takes (${MAX_TOOLS})`] };

  const errors: string[] = [];
  const tools: ToolSchema[] = [];
  const seen = new Map<string, number>();
  list.forEach((item: unknown, index) => {
    const path = `${where}[${index}]`;
    const tool = normaliseTool(item, path, errors);
    if (!tool) return;
    const first = seen.get(tool.name);
    if (first !== undefined) {
      errors.push(`${path}.name: "${tool.name}" is already used by ${where}[${first}]`);
      return;
    }
    seen.set(tool.name, index);
    tools.push(tool);
  });
  if (errors.length > 0) {
    const shown = errors.slice(0, MAX_ERRORS);
    if (errors.length > MAX_ERRORS) shown.push(`…and ${errors.length - MAX_ERRORS} more`);
    return { ok: false, errors: shown };
  }
  return { ok: true, tools };
}

function normaliseTool(item: unknown, path: string, errors: string[]): ToolSchema | undefined {
  // The registry's own reader: the demo takes exactly what a ToolRegistry takes.
  const read = readToolDefinition(item);
  if (read.ok) return read.tool;
  for (const error of read.errors) errors.push(error.startsWith('must') ? `${path}: ${error}` : `${path}.${error}`);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
