import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/structure-report.mjs', import.meta.url));

// A small src/ tree, written per run so the deliberately long and branchy code below never
// meets the project's own typecheck and lint.
const FIXTURE: Record<string, string> = {
  'long.ts': [
    'export function outer(n: number): number {', // 1: outer, lines 1-12 (12)
    '  const inner = (m: number): number => {', // 2: inner, lines 2-6 (5)
    '    const a = m + 1;',
    '    return a * 2;',
    '',
    '  };',
    '  let total = 0;',
    '  for (let i = 0; i < n; i++) total += inner(i);',
    '  return total;',
    '',
    '',
    '}',
    'export class Box {', // 13
    '  size(): number {', // 14: method, lines 14-17 (4)
    '    const s = 1;',
    '    return s;',
    '  }',
    '}',
    'export const one = (): number => 1;', // 19: one line
    'export function deep(a: boolean): number {', // 20: six levels of nesting
    '  if (a) {',
    '    for (const x of [1]) {',
    '      while (a) {',
    '        try {',
    '          switch (x) {',
    '            case 1:',
    '              if (a) return 1;',
    '              else if (!a) return 2;',
    '          }',
    '        } catch {}',
    '      }',
    '    }',
    '  }',
    '  return 0;',
    '}',
  ].join('\n'),
  'hono/proxy/body.ts': [
    "declare const protocol: 'anthropic' | 'openai' | 'responses';",
    "declare const request: { protocol: string; url: URL; kind: 'x' };",
    "export const a = protocol === 'anthropic';",
    "export const b = request.protocol !== 'responses' ? 1 : 2;",
    "export const c = request.url.protocol === 'https:';", // a URL scheme: not a wire protocol
    "export const d = request.kind === 'x';", // not protocol-named
    'export function e(): number {',
    '  switch (protocol) {',
    "    case 'openai':",
    '      return 1;',
    "    case 'anthropic':",
    '      return 2;',
    '    default:',
    '      return 3;',
    '  }',
    '}',
  ].join('\n'),
  'hono/proxy/protocols/anthropic.ts': [
    "declare const protocol: 'anthropic' | 'openai';",
    "export const mine = protocol === 'anthropic';",
  ].join('\n'),
  'text/rules.ts': [
    "export const STOPWORDS = new Set('the and for with that'.split(' '));", // 5
    "const VERBS = ['send', 'reply', 'draft', 'create'];", // 4
    "const HEADERS = ['connection', 'keep-alive', 'upgrade', 'trailer', 'te'];", // header names: code
    "const FEW = ['one', 'two', 'three'];", // under four words
    'const SEQUENCE = /^(?:then|afterwards|after\\s+that|finally)\\b/i;', // 4 alternatives
    "const Mode = { Auto: 'auto', Strict: 'strict', None: 'none', Required: 'required' };", // an enum
    'const SHORT = {', // 4: db, database, repo, repository
    "  db: 'database',",
    "  repo: 'repository',",
    '};',
    "const SCHEMA = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };",
    'export function hint(text: string): boolean {',
    '  return /\\b(?:from|by|via|using)\\s+/.test(text);', // an inline rule
    '}',
    'export const all = [VERBS, HEADERS, FEW, SEQUENCE, Mode, SHORT, SCHEMA];',
  ].join('\n'),
  'text/lexicon-english.ts': "export const WORDS = ['alpha', 'beta', 'gamma', 'delta'];",
  'english-lexicon.ts': "export const MORE = ['alpha', 'beta', 'gamma', 'delta'];",
};

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'structure-report-'));
  for (const [file, text] of Object.entries(FIXTURE)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), `${text}\n`);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Report {
  files: number;
  functions: {
    total: number;
    over150: number;
    over80: number;
    longest: { file: string; name: string; line: number; lines: number }[];
    deep: { threshold: number; count: number; list: { name: string; depth: number }[] };
  };
  protocolBranches: { total: number; files: number; byFile: { file: string; count: number; lines: number[] }[] };
  englishTables: {
    total: number;
    entries: number;
    files: number;
    list: { file: string; name: string; line: number; entries: number; lines: number }[];
  };
  inlineRules: { total: number; list: { file: string; line: number; kind: string; entries: number }[] };
}

const report = (...args: string[]): Report =>
  JSON.parse(execFileSync(process.execPath, [script, root, '--json', ...args], { encoding: 'utf8' }));

describe('scripts/structure-report.mjs', () => {
  it('measures every function, a nested one on its own and inside its parent', () => {
    const { files, functions } = report();
    expect(files).toBe(6);
    const byName = Object.fromEntries(functions.longest.map((f) => [f.name, f]));
    expect(byName.deep).toMatchObject({ file: 'long.ts', line: 20, lines: 16 });
    expect(byName.outer).toMatchObject({ file: 'long.ts', line: 1, lines: 12 });
    expect(byName['outer › inner']).toMatchObject({ line: 2, lines: 5 });
    expect(byName.size).toMatchObject({ line: 14, lines: 4 });
    expect(byName.one).toMatchObject({ line: 19, lines: 1 });
    expect(functions.longest[0]?.name).toBe('deep');
    expect(functions.over80).toBe(0);
    expect(functions.over150).toBe(0);
  });

  it('counts nesting deeper than six control structures, an else-if continuing its chain', () => {
    const { functions } = report();
    expect(functions.deep).toMatchObject({ threshold: 6, count: 1, list: [{ name: 'deep', depth: 6 }] });
    expect(report('--max-depth', '7').functions.deep.count).toBe(0);
  });

  it('counts protocol branches outside the protocol objects, not URL schemes', () => {
    const { protocolBranches } = report();
    expect(protocolBranches).toEqual({
      total: 4,
      files: 1,
      byFile: [{ file: 'hono/proxy/body.ts', count: 4, lines: [3, 4, 9, 11] }],
    });
  });

  it('lists English tables outside the lexicon, and leaves code names, enums and schemas alone', () => {
    const { englishTables, inlineRules } = report();
    expect(englishTables.list.map((t) => [t.name, t.entries])).toEqual([
      ['STOPWORDS', 5],
      ['VERBS', 4],
      ['SEQUENCE', 4],
      ['SHORT', 4],
    ]);
    expect(englishTables).toMatchObject({ total: 4, entries: 17, files: 1 });
    expect(englishTables.list[3]).toMatchObject({ file: 'text/rules.ts', line: 7, lines: 4 });
    expect(inlineRules.list).toEqual([{ file: 'text/rules.ts', line: 13, kind: 'regex', entries: 4 }]);
  });

  it('exits 1 when a function runs over --max-function-lines, naming it', () => {
    const over = spawnSync(process.execPath, [script, root, '--max-function-lines', '12'], { encoding: 'utf8' });
    expect(over.status).toBe(1);
    expect(over.stderr).toContain('long.ts:20 deep (16)');
    expect(over.stderr).not.toContain('outer');
    const within = spawnSync(process.execPath, [script, root, '--max-function-lines', '16'], { encoding: 'utf8' });
    expect(within.status).toBe(0);
    expect(within.stdout).toContain('Protocol branches outside the protocol objects: 4 in 1 files');
  });
});
