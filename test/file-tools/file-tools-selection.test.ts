/**
 * The file tools as a surface: registration (names, readOnly, prefix, all-or-nothing), the
 * recall vocabulary their descriptions carry (tool-side recall: the KeywordSelector's default
 * table reaches each tool from natural prompts), every selector, and a BareLoop run under
 * Strict against the scripted model server reading and grepping files on the memory FS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileTools, memoryFileSystem, registerFileTools } from '../../src/file-tools/file-tools.js';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { textTokens, toolTokens } from '../../src/text/words.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { body, collect, ofType, PROVIDERS, useScriptedServer, wireMessages, wireToolNames } from '../loop/helpers.js';
import { FIXTURE } from './file-cases.js';

const ctx = (prompt: string): SelectionContext => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [{ role: 'user', content: prompt }],
});

function fileRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registerFileTools(registry, memoryFileSystem(FIXTURE));
  return registry;
}

/** Natural prompts and the tool each must reach; the second list is the whole selection. */
const PROMPTS: readonly (readonly [prompt: string, target: string, selection: readonly string[]])[] = [
  ['find where parseConfig is defined', 'Grep', ['Grep']],
  ['look up TODO comments', 'Grep', ['Grep']],
  ['open README.md', 'Read', ['Read']],
  ['show me the contents of package.json', 'Read', ['Read']],
  ['fix the typo in notes.txt', 'Edit', ['Edit']],
  // "file" is in four descriptions; "create" is Write's alone.
  ['create a file hello.txt', 'Write', ['Read', 'Write', 'Edit', 'Grep']],
  ['list all markdown files', 'Glob', ['Grep', 'Glob']],
];

describe('registerFileTools', () => {
  it('registers Read, Write, Edit, Grep and Glob in one call and returns their names', () => {
    const registry = new ToolRegistry();
    expect(registerFileTools(registry, memoryFileSystem())).toEqual(['Read', 'Write', 'Edit', 'Grep', 'Glob']);
    expect(registry.schemas().map((tool) => tool.name)).toEqual(['Read', 'Write', 'Edit', 'Grep', 'Glob']);
  });

  it('readOnly registers Read, Grep and Glob only', () => {
    const registry = new ToolRegistry();
    expect(registerFileTools(registry, memoryFileSystem(), { readOnly: true })).toEqual(['Read', 'Grep', 'Glob']);
    expect(registry.has('Write') || registry.has('Edit')).toBe(false);
  });

  it('prefix renames every tool, and the Read error that points at Glob names the prefixed tool', async () => {
    const registry = new ToolRegistry();
    registerFileTools(registry, memoryFileSystem(FIXTURE), { prefix: 'ws_' });
    expect(registry.schemas().map((tool) => tool.name)).toEqual([
      'ws_Read',
      'ws_Write',
      'ws_Edit',
      'ws_Grep',
      'ws_Glob',
    ]);
    const result = await registry.dispatch({ id: '1', name: 'ws_Read', arguments: '{"path":"src"}' });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('use ws_Glob to list its files') });
  });

  it('two file systems side by side under different prefixes', async () => {
    const registry = new ToolRegistry();
    registerFileTools(registry, memoryFileSystem({ 'a.txt': 'from A' }), { prefix: 'a_' });
    registerFileTools(registry, memoryFileSystem({ 'a.txt': 'from B' }), { prefix: 'b_', readOnly: true });
    const read = (name: string) => registry.dispatch({ id: name, name, arguments: '{"path":"a.txt"}' });
    expect((await read('a_Read')).content).toBe('     1→from A');
    expect((await read('b_Read')).content).toBe('     1→from B');
  });

  it('is all or nothing: a name clash registers none, replace swaps them in place', () => {
    const registry = new ToolRegistry();
    registry.register({ name: 'Grep', description: 'an older grep', parameters: { type: 'object' } }, () => 'old');
    expect(() => registerFileTools(registry, memoryFileSystem())).toThrow(/"Grep" is already registered/);
    expect(registry.schemas().map((tool) => tool.name)).toEqual(['Grep']);
    registerFileTools(registry, memoryFileSystem(), { replace: true });
    expect(registry.schemas().map((tool) => tool.name)).toEqual(['Grep', 'Read', 'Write', 'Edit', 'Glob']);
    expect(registry.get('Grep')?.description).toMatch(/regular expression/);
  });

  it('rejects a bad limit before registering anything', () => {
    const registry = new ToolRegistry();
    expect(() => registerFileTools(registry, memoryFileSystem(), { maxMatches: 0 })).toThrow(
      /maxMatches must be a positive integer/,
    );
    expect(registry.size).toBe(0);
  });

  it('limits are options: maxFileBytes for whole reads, maxScanBytes for ranged ones', async () => {
    const registry = new ToolRegistry();
    const text = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n'); // 2,591 bytes
    registerFileTools(registry, memoryFileSystem({ 'a.txt': text, 'b.txt': text.repeat(2) }), {
      maxFileBytes: 1024,
      maxScanBytes: 4096,
    });
    const read = (args: object) => registry.dispatch({ id: '1', name: 'Read', arguments: JSON.stringify(args) });
    expect((await read({ path: 'a.txt' })).content).toMatch(
      /a\.txt is 2\.5 KB \(2591 bytes\), over the 1 KB limit for reading a whole file/,
    );
    expect((await read({ path: 'a.txt', offset: 299 })).content).toBe(
      '   299→line 299\n   300→line 300\n\n(showing lines 299-300 of 300)',
    );
    expect(await read({ path: 'b.txt', offset: 1, limit: 1 })).toMatchObject({
      isError: true,
      content: expect.stringMatching(/b\.txt is 5\.1 KB, too large to read even by line range \(limit 4 KB\)/),
    });
  });

  it('every schema is a closed object (additionalProperties: false) with its required fields', () => {
    const required = Object.fromEntries(
      fileTools(memoryFileSystem()).map(({ schema }) => [schema.name, schema.parameters.required]),
    );
    expect(required).toEqual({
      Read: ['path'],
      Write: ['path', 'content'],
      Edit: ['path', 'old_string', 'new_string'],
      Grep: ['pattern'],
      Glob: ['pattern'],
    });
    for (const { schema } of fileTools(memoryFileSystem())) {
      expect(schema.parameters, schema.name).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });
});

describe('tool-side recall: the descriptions carry the lookup vocabulary', () => {
  const words = (name: string) => new Set(toolTokens(name, fileRegistry().get(name)?.description ?? ''));

  it('Grep says search, find, look up and locate', () => {
    const grep = fileRegistry().get('Grep')?.description ?? '';
    expect(grep).toMatch(/look up/);
    for (const word of ['search', 'find', 'look', 'locate']) expect(words('Grep'), word).toContain(word);
  });

  it('Read says read, open, show, view and contents', () => {
    for (const word of ['read', 'open', 'show', 'view', 'contents']) expect(words('Read'), word).toContain(word);
  });

  it.each(PROMPTS)('the default KeywordSelector reaches the right tool: %s → %s', (prompt, target, selection) => {
    const all = fileRegistry().schemas();
    const output = applySelection(new KeywordSelector().select(ctx(prompt), all), all);
    expect(output.fellOpen).toBeUndefined();
    expect(output.names).toContain(target);
    // The whole selection, so a description change that widens or narrows recall shows here.
    expect(output.names).toEqual(selection);
  });

  it('the wording is what reaches them: terse descriptions miss the same prompts', () => {
    const terse: ToolSchema[] = fileRegistry()
      .schemas()
      .map((tool) => ({ ...tool, description: 'File operation.' }));
    const selector = new KeywordSelector();
    const missed = PROMPTS.filter(([prompt, target]) => {
      const output = applySelection(selector.select(ctx(prompt), terse), terse);
      return output.fellOpen !== undefined || !output.names.includes(target) || output.names.length === terse.length;
    });
    // Open, show and fix still land: the names Read and Edit meet the table's synonyms.
    expect(missed.map(([prompt]) => prompt)).toEqual([
      'find where parseConfig is defined',
      'look up TODO comments',
      'create a file hello.txt',
      'list all markdown files',
    ]);
    // Sanity: the prompts' words are what the descriptions were written to meet.
    expect(textTokens('look up TODO comments')).toEqual(['look', 'todo', 'comments']);
  });
});

describe('every selector serves the file tools', () => {
  // The embedding stand-in hashes words (no meaning), so only its contract is checked; the
  // lexical selectors and the hybrid (lexical half) must also reach each prompt's tool.
  const selectors = [
    ['static', () => new StaticSelector(), true],
    ['keyword', () => new KeywordSelector(), true],
    ['keyword (ranked, 2)', () => new KeywordSelector({ topK: 2 }), true],
    ['bm25 (top 2)', () => new Bm25Selector({ topK: 2 }), true],
    ['hybrid (top 2)', () => new HybridSelector(countingEmbedder(), { topK: 2 }), true],
    ['embedding (top 2)', () => new EmbeddingSelector(countingEmbedder(), { topK: 2 }), false],
  ] as const;

  it.each(selectors)(
    '%s: selections are registry members (and reach the prompt’s tool)',
    async (name, make, recall) => {
      const all = fileRegistry().schemas();
      const selector = make();
      for (const [prompt, target] of PROMPTS) {
        const output = await selector.select(ctx(prompt), all, { signal: new AbortController().signal });
        expect(output.tools.length, `${name}: ${prompt}`).toBeGreaterThan(0);
        for (const tool of output.tools) expect(all, `${name}: ${prompt}`).toContain(tool);
        if (recall)
          expect(
            output.tools.map((tool) => tool.name),
            `${name}: ${prompt}`,
          ).toContain(target);
      }
    },
  );
});

describe('the core does not import Node or Deno', () => {
  it('src/file-tools files other than the node and deno backends use web-standard APIs only', () => {
    const folder = new URL('../../src/file-tools/', import.meta.url);
    const core = readdirSync(folder).filter((file) => !/^(node|deno)-file-system\.ts$/.test(file));
    expect(core).toContain('file-tools.ts');
    for (const file of core) {
      const source = readFileSync(new URL(file, folder), 'utf8');
      expect(source, file).not.toMatch(/from ['"]node:|import\(['"]node:|\bDeno\./);
      expect(source, file).not.toMatch(/from ['"]\.\/(node|deno)-file-system/);
    }
  });
});

const server = useScriptedServer();

describe.each(PROVIDERS)('a BareLoop run under Strict with KeywordSelector ($provider)', ({ make }) => {
  it('greps and reads files on the memory FS; an unadvertised Write is refused and writes nothing', async () => {
    const fs = memoryFileSystem(FIXTURE);
    const registry = new ToolRegistry();
    registerFileTools(registry, fs);
    server.current.enqueue(
      {
        toolCalls: [
          { id: 'c_grep', name: 'Grep', arguments: { pattern: 'function\\s+parseConfig', path: 'src' } },
          { id: 'c_read', name: 'Read', arguments: { path: 'src/config.ts', offset: 1, limit: 3 } },
          { id: 'c_write', name: 'Write', arguments: { path: 'pwned.txt', content: 'x' } },
        ],
      },
      { toolCalls: [{ id: 'c_escape', name: 'Read', arguments: { path: '../../etc/passwd' } }] },
      { text: 'parseConfig is defined in src/config.ts, line 1.' },
    );
    const events = await collect(
      new BareLoop({ client: make(server.current), registry, config: { constraint: ToolConstraint.Strict } })
        .withToolSelector(new KeywordSelector())
        .run('Find where parseConfig is defined and show it to me'),
    );

    // Selection: the prompt reaches Grep (find → search) and Read (show → read), nothing else.
    expect(ofType(events, 'selection').map((e) => e.advertised)).toEqual([
      ['Read', 'Grep'],
      ['Read', 'Grep'],
      ['Read', 'Grep'],
    ]);
    expect(wireToolNames(server.current.requests[0])).toEqual(['Read', 'Grep']);
    expect(body(server.current.requests[0])).not.toHaveProperty('tool_choice');

    const results = Object.fromEntries(ofType(events, 'tool_result').map((e) => [e.result.toolCallId, e.result]));
    expect(results.c_grep).toMatchObject({
      isError: false,
      content: 'src/config.ts:1:export function parseConfig(text: string) {',
    });
    expect(results.c_read).toMatchObject({
      isError: false,
      content:
        '     1→export function parseConfig(text: string) {\n     2→  return JSON.parse(text);\n     3→}\n\n(showing lines 1-3 of 4; call Read with offset=4 to continue)',
    });
    expect(results.c_write).toMatchObject({ isError: true, content: expect.stringMatching(/not offered this turn/) });
    expect(results.c_escape).toMatchObject({ isError: true, content: expect.stringMatching(/path escapes the root/) });
    await expect(fs.stat('pwned.txt')).rejects.toThrow(/no such file/);

    // The model saw every result on the next request.
    const seen = JSON.stringify(wireMessages(server.current.requests[1]));
    expect(seen).toContain('src/config.ts:1:export function parseConfig');
    expect(seen).toContain('not offered this turn');
    expect(server.current.requests.every((request) => request.rejected === undefined)).toBe(true);
    expect(ofType(events, 'done')[0]).toMatchObject({
      stopReason: 'stop',
      text: 'parseConfig is defined in src/config.ts, line 1.',
    });
  });
});
