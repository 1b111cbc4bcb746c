/**
 * One reader of tool definitions for the registry, the CLI and the demo: the three common
 * shapes (loopctl's own, OpenAI's `{ type: 'function', function }`, Anthropic's `input_schema`
 * and MCP's `inputSchema`) give the same schema everywhere, and a name the providers reject
 * and the wire mapping cannot carry readably is refused at registration, saying the rule.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTools } from '../../src/cli/eval-data.js';
import { createToolNameMap } from '../../src/model/tool-names.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { readToolDefinition, TOOL_NAME_RULE, toToolSchema } from '../../src/registry/tool-definition.js';

const PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const EXPECTED = { name: 'get_weather', description: 'Weather for a city.', parameters: PARAMS };
const SHAPES: [string, unknown][] = [
  ['loopctl', { name: 'get_weather', description: 'Weather for a city.', parameters: PARAMS }],
  [
    'OpenAI',
    { type: 'function', function: { name: 'get_weather', description: 'Weather for a city.', parameters: PARAMS } },
  ],
  ['Anthropic', { name: 'get_weather', description: 'Weather for a city.', input_schema: PARAMS }],
  ['MCP', { name: 'get_weather', description: 'Weather for a city.', inputSchema: PARAMS }],
];

const work = mkdtempSync(join(tmpdir(), 'loopctl-tools-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let files = 0;
function toolsFile(json: unknown): string {
  const file = join(work, `tools-${files++}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}
const noop = () => 'ok';

describe('the three common shapes', () => {
  it.each(SHAPES)('%s: the registry, the CLI and readToolDefinition read the same schema', (_, definition) => {
    const registry = new ToolRegistry().register(definition as never, noop);
    expect(registry.get('get_weather')).toEqual(EXPECTED);
    expect(loadTools(toolsFile([definition]))).toEqual([EXPECTED]);
    expect(readToolDefinition(definition)).toEqual({ ok: true, tool: EXPECTED });
  });

  it("Anthropic's input_schema is kept, not dropped (the CLI used to replace it with {})", () => {
    const [tool] = loadTools(
      toolsFile([{ name: 'search', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }]),
    );
    expect(tool?.parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });

  it('a missing description is empty and a missing schema takes no arguments, in the registry as in the CLI', () => {
    const registry = new ToolRegistry().register({ name: 'ping' }, noop);
    const bare = { name: 'ping', description: '', parameters: { type: 'object', properties: {} } };
    expect(registry.get('ping')).toEqual(bare);
    expect(loadTools(toolsFile([{ name: 'ping' }]))).toEqual([bare]);
  });

  it('registerMany and replace take every shape too', async () => {
    const registry = new ToolRegistry().registerMany(
      SHAPES.slice(1, 2).map(([, schema]) => ({ schema: schema as never, handler: noop })),
    );
    expect(registry.get('get_weather')).toEqual(EXPECTED);
    registry.replace({ name: 'get_weather', description: 'Changed.', inputSchema: PARAMS }, noop);
    expect(registry.get('get_weather')?.description).toBe('Changed.');
    expect(await registry.dispatch({ id: '1', name: 'get_weather', arguments: '{}' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('city'),
    });
  });
});

describe('what the registry refuses, the CLI refuses, with the same words', () => {
  const BAD: [string, unknown, RegExp][] = [
    [
      'a name with a space and a !',
      { name: 'send email!', parameters: PARAMS },
      /name: "send email!" is refused: tool names are 1-64 printable ASCII characters, no spaces/,
    ],
    ['an empty name', { name: '' }, /name: "" is refused/],
    ['a name over 64 characters', { name: 'x'.repeat(65) }, /name: "x{65}" is refused/],
    ['a name in another script', { name: '天気' }, /name: "天気" is refused/],
    ['a tab', { name: 'get\tweather' }, /is refused/],
    ['no name', { description: 'nameless' }, /name: undefined is refused/],
    [
      'a wrapped name',
      { type: 'function', function: { name: 'send email' } },
      /function\.name: "send email" is refused/,
    ],
    ['a description that is not a string', { name: 'ok', description: 7 }, /description: must be a string/],
    [
      'parameters that are not an object schema',
      { name: 'ok', parameters: { type: 'string' } },
      /parameters: must be a JSON Schema of type object/,
    ],
    [
      'an input_schema that is an array',
      { name: 'ok', input_schema: [] },
      /input_schema: must be a JSON Schema of type object/,
    ],
    ['not an object', 'get_weather', /must be an object/],
  ];
  it.each(BAD)('%s', (_, definition, message) => {
    expect(() => new ToolRegistry().register(definition as never, noop)).toThrow(message);
    expect(() => loadTools(toolsFile([definition]))).toThrow(message);
  });

  it('the error states the rule, and the rule is what the wire mapping carries', () => {
    expect(() => toToolSchema({ name: 'send email!' })).toThrow(TOOL_NAME_RULE);
    expect(TOOL_NAME_RULE).toContain('^[a-zA-Z0-9_-]{1,64}$');
  });

  it('keeps the names the eval sets use: dotted, &, and names like Object.prototype members', () => {
    const names = [
      'math.factorial',
      'AclApi.add_mapping',
      'PDF&URLTool',
      '__proto__',
      'constructor',
      'x'.repeat(64),
      'a-b_c',
    ];
    const registry = new ToolRegistry();
    for (const name of names) registry.register({ name }, noop);
    expect(registry.schemas().map((tool) => tool.name)).toEqual(names);
    // Each goes to the model under a valid, readable (hash-free) name and maps back.
    const wire = createToolNameMap(names);
    for (const name of names) {
      const sent = wire.toWire(name);
      expect(sent).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(sent).toBe(name.replace(/[^a-zA-Z0-9_-]/g, '_'));
      expect(wire.fromWire(sent)).toBe(name);
    }
  });

  it('a file lists every problem with its path; duplicates are refused', () => {
    const file = toolsFile({ tools: [{ name: 'ok' }, { name: 'bad name' }, { name: 'ok' }, 3] });
    expect(() => loadTools(file)).toThrow(
      /tools\[1\]\.name: "bad name" is refused[\s\S]*tools\[2\]\.name: "ok" is already used by tools\[0\][\s\S]*tools\[3\]: must be an object/,
    );
  });
});

describe('the shared eval sets', () => {
  const shared = resolve(import.meta.dirname, '../../../shared/eval');
  it.skipIf(!existsSync(shared))('every tools.json registers whole, and the CLI reads it the same', () => {
    for (const set of ['bfcl', 'bfcl_multi_turn', 'metatool']) {
      const file = join(shared, set, 'tools.json');
      const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
      const registry = new ToolRegistry();
      for (const tool of raw) registry.register(tool as never, noop);
      expect(registry.size, set).toBe(raw.length);
      expect(loadTools(file).map((tool) => tool.name)).toEqual(registry.schemas().map((tool) => tool.name));
    }
  });
});
