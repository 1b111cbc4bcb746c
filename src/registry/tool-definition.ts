/**
 * The one reader of tool definitions, used by the registry, the CLI, the demo page and the
 * workers' tools files: loopctl's own `{ name, description, parameters }`, OpenAI's
 * `{ type: 'function', function: { … } }`, and Anthropic's `input_schema` / MCP's
 * `inputSchema`, each checked the same way and turned into a {@link ToolSchema}.
 */
import type { JsonSchema, ToolSchema } from './schema.js';

/** A tool as providers and MCP servers write it; `description` and the schema are optional. */
export type ToolDefinition =
  | { readonly name: string; readonly description?: string; readonly parameters?: JsonSchema }
  | {
      readonly type: 'function';
      readonly function: { readonly name: string; readonly description?: string; readonly parameters?: JsonSchema };
    }
  | { readonly name: string; readonly description?: string; readonly input_schema: JsonSchema }
  | { readonly name: string; readonly description?: string; readonly inputSchema: JsonSchema };

/**
 * What a tool name may be: what OpenAI and Anthropic accept (`WIRE_NAME_PATTERN`), or other printable ASCII characters (the
 * `.` of `math.factorial`, the `&` of `PDF&URLTool`), which the model clients send as `_` and
 * map back on the way in (see `createToolNameMap`). Spaces, control characters, other scripts
 * and names over 64 characters would reach the model as a different or hashed name, so they
 * are refused at registration.
 */
export const TOOL_NAME_RULE =
  'tool names are 1-64 printable ASCII characters, no spaces (OpenAI and Anthropic take ^[a-zA-Z0-9_-]{1,64}$; any other character, like the . in math.factorial, is sent as _)';

const NAME = /^[\x21-\x7e]{1,64}$/;
const SCHEMA_KEYS = ['parameters', 'input_schema', 'inputSchema'];

/** A definition read: the tool, or every problem found (each names its field, e.g. `name: …`). */
export type ToolReadResult =
  | { readonly ok: true; readonly tool: ToolSchema }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * Read one tool definition in any of the {@link ToolDefinition} shapes. A missing description
 * is `''`; a missing schema takes no arguments (`{ type: 'object', properties: {} }`). A name
 * outside {@link TOOL_NAME_RULE} is refused, with the rule.
 *
 * @example
 * readToolDefinition({ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } })
 * // { ok: true, tool: { name: 'get_weather', description: '', parameters: { type: 'object' } } }
 * readToolDefinition({ name: 'send email!' }) // { ok: false, errors: ['name: "send email!" is refused: tool names are …'] }
 */
export function readToolDefinition(value: unknown): ToolReadResult {
  // OpenAI wraps the schema: { type: 'function', function: { name, description, parameters } }.
  const body = isRecord(value) && value.type === 'function' && isRecord(value.function) ? value.function : value;
  if (!isRecord(body)) return { ok: false, errors: ['must be an object'] };
  const at = body === value ? '' : 'function.';
  const { name, description } = body;
  const key = SCHEMA_KEYS.find((k) => body[k] !== undefined) ?? 'parameters';
  const parameters = body[key] ?? { type: 'object', properties: {} };
  const errors = [
    typeof name === 'string' && NAME.test(name)
      ? ''
      : `${at}name: ${JSON.stringify(typeof name === 'string' ? name.slice(0, 65) : name)} is refused: ${TOOL_NAME_RULE}`,
    description === undefined || typeof description === 'string' ? '' : `${at}description: must be a string`,
    isRecord(parameters) && (parameters.type ?? 'object') === 'object'
      ? ''
      : `${at}${key}: must be a JSON Schema of type object`,
  ].filter(Boolean);
  return errors.length > 0
    ? { ok: false, errors }
    : {
        ok: true,
        tool: {
          name: name as string,
          description: (description as string | undefined) ?? '',
          parameters: parameters as JsonSchema,
        },
      };
}

/**
 * {@link readToolDefinition}, throwing a `TypeError` that lists every problem.
 *
 * @example
 * const schema = toToolSchema({ name: 'search', input_schema: { type: 'object' } })
 * toToolSchema({ name: 'send email!' }) // TypeError: invalid tool: name: "send email!" is refused: tool names are …
 */
export function toToolSchema(value: unknown): ToolSchema {
  const read = readToolDefinition(value);
  if (!read.ok) throw new TypeError(`invalid tool: ${read.errors.join('; ')}`);
  return read.tool;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
