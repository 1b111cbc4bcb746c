/**
 * The file-tool case table: one list of cases, framework-neutral, run on every backend —
 * memory and Node (vitest, test/file-tools/file-tools.test.ts), Deno (Deno.test,
 * test/deno/file-tools.test.ts) and OPFS in Chromium (page-evaluated,
 * test/e2e/opfs-file-tools.test.ts). A case is a plain async function taking a context with
 * the file system, a registry holding the five tools, and an assert-like `check`.
 *
 * Each case runs on a fresh root seeded with {@link FIXTURE}. Backends with real symbolic
 * links (Node, Deno) also create the links of {@link LINKS}, pointing at a directory outside
 * the root that holds {@link SECRET}; cases marked `needs: 'symlinks'` run only there.
 *
 * @example
 * for (const fileCase of FILE_CASES) {
 *   await runFileCase(fileCase, { name: 'memory', create: async () => ({ fs: memoryFileSystem() }) })
 * }
 */

import type { FileSystem, FileToolsOptions } from '../../src/file-tools/file-tools.js';
import { isFileSystemError, registerFileTools } from '../../src/file-tools/file-tools.js';
import type { ToolResult } from '../../src/message.js';
import { ToolRegistry } from '../../src/registry/registry.js';

/** The assertions a case uses; {@link simpleCheck} works anywhere, runners may pass their own. */
export interface Check {
  ok(value: unknown, message?: string): void;
  /** Deep equality (JSON-comparable values). */
  equal(actual: unknown, expected: unknown, message?: string): void;
  match(text: string, pattern: RegExp, message?: string): void;
  notMatch(text: string, pattern: RegExp, message?: string): void;
}

/** Assertions that throw plain Errors: for Deno and the browser page. */
export const simpleCheck: Check = {
  ok(value, message = 'expected a truthy value') {
    if (!value) throw new Error(message);
  },
  equal(actual, expected, message = 'values differ') {
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    if (a !== e) throw new Error(`${message}\n  actual:   ${a}\n  expected: ${e}`);
  },
  match(text, pattern, message = 'text does not match') {
    if (!pattern.test(text)) throw new Error(`${message}: ${pattern} not found in\n${text.slice(0, 2000)}`);
  },
  notMatch(text, pattern, message = 'text matches') {
    if (pattern.test(text)) throw new Error(`${message}: ${pattern} found in\n${text.slice(0, 2000)}`);
  },
};

/** The directory outside the root, as a backend with links can inspect it. */
export interface Outside {
  /** A file's text in the outside directory, or undefined when absent. */
  read(name: string): Promise<string | undefined>;
}

/** A fresh root for one case. */
export interface BackendRoot {
  readonly fs: FileSystem;
  /** Present when the backend created {@link LINKS}. */
  readonly outside?: Outside;
  dispose?(): Promise<void>;
}

/** A backend the table runs on. */
export interface Backend {
  readonly name: string;
  create(): Promise<BackendRoot>;
}

/** What a case is handed. */
export interface CaseContext {
  readonly fs: FileSystem;
  readonly outside: Outside | undefined;
  readonly check: Check;
  /** Dispatch a call through a registry holding the five tools (arguments validated first). */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Call, check it succeeded, return its text. */
  ok(tool: string, args: Record<string, unknown>): Promise<string>;
  /** Call, check it failed with a message matching `pattern`, return its text. */
  fails(tool: string, args: Record<string, unknown>, pattern: RegExp): Promise<string>;
  /** `ok` on a separate registry built with these options over the same file system. */
  okWith(options: FileToolsOptions, tool: string, args: Record<string, unknown>): Promise<string>;
  /** A file's text straight from the file system. */
  text(path: string): Promise<string>;
}

/** One case of the table. */
export interface FileCase {
  readonly name: string;
  readonly needs?: 'symlinks';
  run(ctx: CaseContext): Promise<void>;
}

/** The text behind every link out of the root; no tool result may ever contain it. */
export const SECRET = 'TOP SECRET: outside the root';

/**
 * Links a backend with symbolic links creates in the root (targets relative to the root's
 * parent layout: `outside/` is a sibling directory of the root holding `secret.txt`).
 */
export const LINKS = {
  /** → the outside directory. */
  dir: 'link-out',
  /** → outside/secret.txt. */
  file: 'link-secret.txt',
  /** → outside/from-dangling.txt, which does not exist. */
  dangling: 'link-dangling.txt',
  /** The file a dangling link would create outside. */
  danglingTarget: 'from-dangling.txt',
  /** → README.md, inside the root. */
  inside: 'link-readme.md',
} as const;

const bytes = (...values: number[]) => new Uint8Array(values);

/** The files every case starts from. */
export const FIXTURE: Readonly<Record<string, string | Uint8Array>> = {
  'README.md': '# Demo project\n\nA tiny workspace for the file tools.\nTODO: write the docs\n',
  'package.json': '{\n  "name": "demo",\n  "version": "1.0.0"\n}\n',
  'notes.txt': 'Teh quick brown fox\nrepeat me\nrepeat me\n',
  'empty.txt': '',
  'src/config.ts':
    'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n// TODO: validate the config\n',
  'src/main.ts':
    "import { parseConfig } from '../tools/config';\n\nconst config = parseConfig('{}');\nconsole.log(config);\n",
  'src/util/strings.ts': 'export const shout = (s: string) => s.toUpperCase();\n',
  'docs/guide.md': '# Guide\n\nCall parseConfig with JSON text.\n',
  'docs/api.md': '# API\n\n- parseConfig(text)\n',
  'data/crlf.txt': 'first line\r\nsecond line\r\n',
  // A PNG header: a NUL byte early, and the letters "PNG" a search could hit.
  'data/image.bin': bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52),
  // "café" in Latin-1: no NUL, but not UTF-8.
  'data/latin1.txt': bytes(0x63, 0x61, 0x66, 0xe9, 0x0a),
  'node_modules/pkg/index.js': 'module.exports = "parseConfig is ignored here";\n',
};

/** Write {@link FIXTURE} through the interface (so seeding exercises `mkdir` and `writeFile`). */
export async function seedFixture(fs: FileSystem): Promise<void> {
  for (const [path, data] of Object.entries(FIXTURE)) {
    const cut = path.lastIndexOf('/');
    if (cut > 0) await fs.mkdir(path.slice(0, cut));
    await fs.writeFile(path, data);
  }
}

/** The 10 MB file: 163,840 lines of 64 bytes, `line 000001 …`. */
export function bigText(): string {
  const lines: string[] = [];
  for (let n = 1; n <= 163_840; n++) lines.push(`line ${String(n).padStart(6, '0')} ${'x'.repeat(51)}`);
  return `${lines.join('\n')}\n`;
}

/** A root-relative path's text through the file system. */
async function readText(fs: FileSystem, path: string): Promise<string> {
  return new TextDecoder().decode(await fs.readFile(path));
}

/** A rejection's error, or a thrown check when the promise resolved. */
async function rejection(check: Check, promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  check.ok(false, 'expected the call to fail');
  return undefined;
}

const tool = (name: string, args: Record<string, unknown>) => ({ name, args });

/** One call per tool with `path` (or Glob's pattern) set to the given escape attempt. */
function everyTool(path: string) {
  return [
    tool('Read', { path }),
    tool('Write', { path, content: 'pwned' }),
    tool('Edit', { path, old_string: 'a', new_string: 'b' }),
    tool('Grep', { pattern: 'root', path }),
    tool('Glob', { pattern: '*', path }),
  ];
}

const ESCAPES = /path escapes the root/;

/** How the tools show a long path: its first and last 99/100 characters around an ellipsis. */
function displayPathForTest(path: string): string {
  return path.length <= 200 ? path : `${path.slice(0, 100)}…${path.slice(-99)}`;
}

/** The table. */
export const FILE_CASES: readonly FileCase[] = [
  // ── Read ────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Read: a whole file with line numbers',
    async run({ ok, check }) {
      check.equal(
        await ok('Read', { path: 'README.md' }),
        '     1→# Demo project\n     2→\n     3→A tiny workspace for the file tools.\n     4→TODO: write the docs',
      );
    },
  },
  {
    name: 'Read: a line range says which lines of how many and where to continue',
    async run({ ok, check }) {
      check.equal(
        await ok('Read', { path: 'notes.txt', offset: 2, limit: 1 }),
        '     2→repeat me\n\n(showing lines 2-2 of 3; call Read with offset=3 to continue)',
      );
      check.equal(
        await ok('Read', { path: 'notes.txt', offset: 2 }),
        '     2→repeat me\n     3→repeat me\n\n(showing lines 2-3 of 3)',
      );
    },
  },
  {
    name: 'Read: an offset past the end is an error',
    async run({ fails }) {
      await fails('Read', { path: 'notes.txt', offset: 10 }, /offset 10 is past the end of notes\.txt \(3 lines\)/);
    },
  },
  {
    name: 'Read: a missing file is an error',
    async run({ fails }) {
      await fails('Read', { path: 'nope/missing.txt' }, /nope\/missing\.txt: no such file or directory/);
    },
  },
  {
    name: 'Read: a directory is an error that points at Glob',
    async run({ fails }) {
      await fails('Read', { path: 'src' }, /src: is a directory; use Glob/);
    },
  },
  {
    name: 'Read: an empty file says so',
    async run({ ok, check }) {
      check.equal(await ok('Read', { path: 'empty.txt' }), 'empty.txt is empty (0 bytes).');
    },
  },
  {
    name: 'Read: CRLF lines show without carriage returns',
    async run({ ok, check }) {
      check.equal(await ok('Read', { path: 'data/crlf.txt' }), '     1→first line\n     2→second line');
    },
  },
  {
    name: 'Read: a binary file (NUL byte) is refused with its size',
    async run({ fails }) {
      await fails('Read', { path: 'data/image.bin' }, /data\/image\.bin: binary file, 16 bytes/);
    },
  },
  {
    name: 'Read: invalid UTF-8 counts as binary',
    async run({ fails }) {
      await fails('Read', { path: 'data/latin1.txt' }, /data\/latin1\.txt: binary file, 5 bytes/);
    },
  },
  {
    name: 'Read: a very long line is cut and says how long it was',
    async run({ fs, ok, check }) {
      await fs.writeFile('long.txt', `${'a'.repeat(5000)}\nshort\n`);
      const text = await ok('Read', { path: 'long.txt' });
      check.match(text, /\[line truncated, 5000 characters\]\n {5}2→short$/);
      check.ok(text.length < 2200, `output is ${text.length} characters`);
    },
  },
  {
    name: 'Read: without a limit it stops at 2000 lines and names the offset to continue',
    async run({ fs, ok, check }) {
      await fs.writeFile('many.txt', Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join('\n'));
      const text = await ok('Read', { path: 'many.txt' });
      check.match(
        text,
        / {2}2000→row 2000\n\n\(showing lines 1-2000 of 2500; call Read with offset=2001 to continue\)$/,
      );
      check.notMatch(text, /row 2001/);
    },
  },
  {
    name: 'Read: a 10 MB file is refused whole and paged by line range',
    async run({ fs, ok, fails, check }) {
      await fs.mkdir('big');
      await fs.writeFile('big/huge.log', bigText());
      await fails(
        'Read',
        { path: 'big/huge.log' },
        /big\/huge\.log is 10 MB \(10485760 bytes\), over the 2 MB limit for reading a whole file\. Read a range of lines with offset and limit/,
      );
      const page = await ok('Read', { path: 'big/huge.log', offset: 100_000, limit: 2 });
      check.match(
        page,
        /^100000→line 100000 x+\n100001→line 100001 x+\n\n\(showing lines 100000-100001 of 163840; call Read with offset=100002 to continue\)$/,
      );
    },
  },
  {
    name: 'Read: the output cap stops long results and names the offset to continue',
    async run({ fs, okWith, check }) {
      await fs.writeFile('wide.txt', Array.from({ length: 50 }, (_, i) => `${i + 1} ${'w'.repeat(90)}`).join('\n'));
      const text = await okWith({ maxOutputChars: 1000 }, 'Read', { path: 'wide.txt' });
      check.match(text, /\n {4}10→10 w{90}\n\n\(showing lines 1-10 of 50; call Read with offset=11 to continue\)$/);
    },
  },

  // ── Write ───────────────────────────────────────────────────────────────────────────────
  {
    name: 'Write: creates a file and its parent folders',
    async run({ fs, ok, check, text }) {
      check.equal(
        await ok('Write', { path: 'new/deep/hello.txt', content: 'hi\n' }),
        'Created new/deep/hello.txt: 3 bytes.',
      );
      check.equal(await text('new/deep/hello.txt'), 'hi\n');
      check.ok((await fs.stat('new/deep')).isDirectory, 'new/deep is a directory');
    },
  },
  {
    name: 'Write: overwrites an existing file and says what it replaced',
    async run({ ok, check, text }) {
      check.equal(
        await ok('Write', { path: 'notes.txt', content: 'new\n' }),
        'Overwrote notes.txt: 4 bytes, was 40 bytes.',
      );
      check.equal(await text('notes.txt'), 'new\n');
    },
  },
  {
    name: 'Write: a directory or the root is not a file',
    async run({ fails }) {
      await fails('Write', { path: 'src', content: 'x' }, /src: is a directory; name a file/);
      await fails('Write', { path: '.', content: 'x' }, /is the root directory; name a file/);
    },
  },
  {
    name: 'Write: a parent that is a file is an error, and the file is untouched',
    async run({ fails, text, check }) {
      await fails('Write', { path: 'notes.txt/inner.txt', content: 'x' }, /notes\.txt.*(not a directory|is a file)/);
      check.equal(await text('notes.txt'), FIXTURE['notes.txt']);
    },
  },

  // ── Edit ────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Edit: replaces a unique string',
    async run({ ok, check, text }) {
      check.equal(
        await ok('Edit', { path: 'notes.txt', old_string: 'Teh', new_string: 'The' }),
        'Edited notes.txt: replaced 1 occurrence at line 1.',
      );
      check.equal(await text('notes.txt'), 'The quick brown fox\nrepeat me\nrepeat me\n');
    },
  },
  {
    name: 'Edit: an absent string fails clearly and leaves the file alone',
    async run({ fails, check, text }) {
      await fails(
        'Edit',
        { path: 'notes.txt', old_string: 'lazy dog', new_string: 'cat' },
        /old_string was not found in notes\.txt; it must match exactly/,
      );
      check.equal(await text('notes.txt'), FIXTURE['notes.txt']);
    },
  },
  {
    name: 'Edit: a non-unique string fails with its count and lines; replace_all replaces them all',
    async run({ ok, fails, check, text }) {
      await fails(
        'Edit',
        { path: 'notes.txt', old_string: 'repeat me', new_string: 'once' },
        /old_string occurs 2 times in notes\.txt \(lines 2, 3\).*replace_all/,
      );
      check.equal(await text('notes.txt'), FIXTURE['notes.txt']);
      check.equal(
        await ok('Edit', { path: 'notes.txt', old_string: 'repeat me', new_string: 'once', replace_all: true }),
        'Edited notes.txt: replaced 2 occurrences (lines 2, 3).',
      );
      check.equal(await text('notes.txt'), 'Teh quick brown fox\nonce\nonce\n');
    },
  },
  {
    name: 'Edit: replacement text is literal ($& and $1 stay as written)',
    async run({ ok, text, check }) {
      await ok('Edit', { path: 'notes.txt', old_string: 'Teh', new_string: '$& $1 $$' });
      check.equal(await text('notes.txt'), '$& $1 $$ quick brown fox\nrepeat me\nrepeat me\n');
    },
  },
  {
    name: 'Edit: a missing file, identical strings and an empty old_string are errors',
    async run({ fails }) {
      await fails(
        'Edit',
        { path: 'missing.txt', old_string: 'a', new_string: 'b' },
        /missing\.txt: no such file or directory/,
      );
      await fails(
        'Edit',
        { path: 'notes.txt', old_string: 'Teh', new_string: 'Teh' },
        /old_string and new_string are the same/,
      );
      await fails(
        'Edit',
        { path: 'notes.txt', old_string: '', new_string: 'x' },
        /invalid arguments for "Edit": \/old_string/,
      );
    },
  },
  {
    name: 'Edit: an LF old_string matches a CRLF file, which keeps its CRLF endings',
    async run({ ok, text, check }) {
      await ok('Edit', { path: 'data/crlf.txt', old_string: 'first line\nsecond', new_string: 'line one\nline two,' });
      check.equal(await text('data/crlf.txt'), 'line one\r\nline two, line\r\n');
    },
  },
  {
    name: 'Edit: a binary file is refused',
    async run({ fails }) {
      await fails('Edit', { path: 'data/image.bin', old_string: 'PNG', new_string: 'GIF' }, /binary file, 16 bytes/);
    },
  },

  // ── Grep ────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Grep: finds where parseConfig is defined (path:line:text)',
    async run({ ok, check }) {
      check.equal(
        await ok('Grep', { pattern: 'function\\s+parseConfig' }),
        'src/config.ts:1:export function parseConfig(text: string) {\n\n(skipped 2 files: 2 binary)',
      );
    },
  },
  {
    name: 'Grep: every matching line in path order, node_modules not searched',
    async run({ ok, check }) {
      check.equal(
        await ok('Grep', { pattern: 'parseConfig' }),
        [
          'docs/api.md:3:- parseConfig(text)',
          'docs/guide.md:3:Call parseConfig with JSON text.',
          'src/config.ts:1:export function parseConfig(text: string) {',
          "src/main.ts:1:import { parseConfig } from '../tools/config';",
          "src/main.ts:3:const config = parseConfig('{}');",
          '',
          '(skipped 2 files: 2 binary)',
        ].join('\n'),
      );
      const inModules = 'node_modules/pkg/index.js:1:module.exports = "parseConfig is ignored here";';
      check.equal(await ok('Grep', { pattern: 'ignored', path: 'node_modules' }), inModules);
      check.equal(await ok('Grep', { pattern: 'ignored', glob: 'node_modules/**' }), inModules);
    },
  },
  {
    name: 'Grep: look up TODO comments; ignore_case',
    async run({ ok, check }) {
      const todo = 'README.md:4:TODO: write the docs\nsrc/config.ts:4:// TODO: validate the config';
      check.equal(await ok('Grep', { pattern: 'TODO', glob: '*.{md,ts}' }), todo);
      check.equal(await ok('Grep', { pattern: 'todo', glob: '*.{md,ts}' }), 'No matches for /todo/ in 6 files.');
      check.equal(await ok('Grep', { pattern: 'todo', glob: '*.{md,ts}', ignore_case: true }), todo);
    },
  },
  {
    name: 'Grep: path scope (a folder, one file) and glob filter (by name, by path)',
    async run({ ok, check }) {
      check.equal(
        await ok('Grep', { pattern: 'parseConfig', path: 'src' }),
        "src/config.ts:1:export function parseConfig(text: string) {\nsrc/main.ts:1:import { parseConfig } from '../tools/config';\nsrc/main.ts:3:const config = parseConfig('{}');",
      );
      check.equal(
        await ok('Grep', { pattern: 'parseConfig', path: 'docs/api.md' }),
        'docs/api.md:3:- parseConfig(text)',
      );
      check.equal(
        await ok('Grep', { pattern: 'parseConfig', glob: '*.md' }),
        'docs/api.md:3:- parseConfig(text)\ndocs/guide.md:3:Call parseConfig with JSON text.',
      );
      check.equal(
        await ok('Grep', { pattern: 'parseConfig', glob: 'src/*.ts' }),
        "src/config.ts:1:export function parseConfig(text: string) {\nsrc/main.ts:1:import { parseConfig } from '../tools/config';\nsrc/main.ts:3:const config = parseConfig('{}');",
      );
      check.equal(
        await ok('Grep', { pattern: 'toUpperCase', path: 'src', glob: 'util/**' }),
        'src/util/strings.ts:1:export const shout = (s: string) => s.toUpperCase();',
      );
    },
  },
  {
    name: 'Grep: a pattern that matches nothing is an answer, not an error',
    async run({ ok, check }) {
      check.equal(await ok('Grep', { pattern: 'zebra', path: 'src' }), 'No matches for /zebra/ in 3 files under src.');
    },
  },
  {
    name: 'Grep: an invalid regular expression is a clear error',
    async run({ fails }) {
      await fails('Grep', { pattern: '(unclosed' }, /invalid regular expression \/\(unclosed\/: /);
      await fails('Grep', { pattern: '[z-a]' }, /invalid regular expression/);
    },
  },
  {
    name: 'Grep: past the match cap it says how many more matches were not shown',
    async run({ fs, ok, check }) {
      await fs.writeFile('hits.txt', Array.from({ length: 150 }, (_, i) => `hit ${i + 1}`).join('\n'));
      const text = await ok('Grep', { pattern: '^hit', path: 'hits.txt' });
      const lines = text.split('\n');
      check.equal(lines[99], 'hits.txt:100:hit 100');
      check.equal(lines.slice(100), ['', '(50 more matches not shown; narrow the pattern, path or glob)']);
    },
  },
  {
    name: 'Grep: skips binary files and counts them',
    async run({ ok, check }) {
      check.equal(
        await ok('Grep', { pattern: 'PNG|caf', path: 'data' }),
        'No matches for /PNG|caf/ in 1 file under data.\n\n(skipped 2 files: 2 binary)',
      );
    },
  },
  {
    name: 'Grep: skips a 10 MB file and names it',
    async run({ fs, ok, check }) {
      await fs.mkdir('big');
      await fs.writeFile('big/huge.log', bigText());
      await fs.writeFile('big/small.log', 'line 000001 small\n');
      check.equal(
        await ok('Grep', { pattern: 'line 000001', path: 'big' }),
        'big/small.log:1:line 000001 small\n\n(skipped 1 file: 1 over the 2 MB limit: big/huge.log)',
      );
    },
  },
  {
    name: 'Grep: a missing path is an error',
    async run({ fails }) {
      await fails('Grep', { pattern: 'x', path: 'nowhere' }, /nowhere: no such file or directory/);
    },
  },

  // ── Glob ────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Glob: **/*.ts, sorted',
    async run({ ok, check }) {
      check.equal(await ok('Glob', { pattern: '**/*.ts' }), 'src/config.ts\nsrc/main.ts\nsrc/util/strings.ts');
    },
  },
  {
    name: 'Glob: *.md is the top folder only; **/*.md is every markdown file',
    async run({ ok, check }) {
      check.equal(await ok('Glob', { pattern: '*.md' }), 'README.md');
      check.equal(await ok('Glob', { pattern: '**/*.md' }), 'README.md\ndocs/api.md\ndocs/guide.md');
    },
  },
  {
    name: 'Glob: braces, ? and character classes',
    async run({ ok, check }) {
      check.equal(
        await ok('Glob', { pattern: '{docs,src}/*.{md,ts}' }),
        'docs/api.md\ndocs/guide.md\nsrc/config.ts\nsrc/main.ts',
      );
      check.equal(await ok('Glob', { pattern: 'data/*.[bt]?[nt]' }), 'data/crlf.txt\ndata/image.bin\ndata/latin1.txt');
      check.equal(await ok('Glob', { pattern: 'src/[!m]*.ts' }), 'src/config.ts');
    },
  },
  {
    name: 'Glob: path scope, with root-relative results',
    async run({ ok, check }) {
      check.equal(await ok('Glob', { pattern: '*.md', path: 'docs' }), 'docs/api.md\ndocs/guide.md');
      check.equal(await ok('Glob', { pattern: '**', path: 'node_modules' }), 'node_modules/pkg/index.js');
      // Naming an ignored folder in the pattern opts into it; otherwise it is skipped.
      check.equal(await ok('Glob', { pattern: 'node_modules/**/*.js' }), 'node_modules/pkg/index.js');
      check.equal(await ok('Glob', { pattern: '**/*.js' }), 'No files match **/*.js.');
    },
  },
  {
    name: 'Glob: no match is an answer; a file as path is an error',
    async run({ ok, fails, check }) {
      check.equal(await ok('Glob', { pattern: '**/*.xyz' }), 'No files match **/*.xyz.');
      check.equal(await ok('Glob', { pattern: '*.ts', path: 'docs' }), 'No files match *.ts under docs.');
      await fails('Glob', { pattern: '*', path: 'README.md' }, /README\.md: is a file; pass a folder as path/);
    },
  },
  {
    name: 'Glob: past the cap it says how many more paths were not shown',
    async run({ okWith, check }) {
      check.equal(
        await okWith({ maxPaths: 2 }, 'Glob', { pattern: '**/*.ts' }),
        'src/config.ts\nsrc/main.ts\n\n(1 more path not shown; narrow the pattern or path)',
      );
    },
  },

  // ── Paths that try to leave the root ────────────────────────────────────────────────────
  ...['../x', '/etc/passwd', 'a/../../x', '..\\x', 'C:\\Windows\\win.ini'].map(
    (path): FileCase => ({
      name: `escape: every tool refuses ${JSON.stringify(path)} ("path escapes the root")`,
      async run({ call, check, fs }) {
        for (const { name, args } of everyTool(path)) {
          const result = await call(name, args);
          check.ok(result.isError, `${name} ${JSON.stringify(args)} should fail`);
          check.match(result.content, ESCAPES, `${name} ${JSON.stringify(args)}`);
        }
        check.equal(
          (await fs.list('')).some((entry) => entry.name === 'x' || entry.name === 'a'),
          false,
          'nothing was created',
        );
      },
    }),
  ),
  {
    name: 'escape: a NUL byte in a path is refused',
    async run({ fails }) {
      await fails('Read', { path: 'README.md\0.txt' }, /NUL byte/);
      await fails('Write', { path: 'x\0y', content: 'x' }, /NUL byte/);
    },
  },
  {
    name: 'escape: a Glob pattern cannot climb out either',
    async run({ fails }) {
      await fails('Glob', { pattern: '../*' }, ESCAPES);
      await fails('Glob', { pattern: '/etc/*' }, ESCAPES);
    },
  },
  {
    name: 'escape: the file system itself refuses escapes (no tool involved)',
    async run({ fs, check }) {
      for (const attempt of [
        () => fs.readFile('../x'),
        () => fs.writeFile('/tmp/loopctl-escape.txt', 'x'),
        () => fs.mkdir('a/../../y'),
        () => fs.list('..'),
        () => fs.stat('/etc/passwd'),
      ]) {
        const error = await rejection(check, attempt());
        check.ok(isFileSystemError(error, 'escapes-root'), `expected escapes-root, got ${String(error)}`);
      }
    },
  },
  {
    name: 'paths: a/../README.md and ./README.md stay inside and work',
    async run({ ok, check }) {
      check.match(await ok('Read', { path: 'src/../README.md' }), /^ {5}1→# Demo project/);
      check.match(await ok('Read', { path: './README.md' }), /^ {5}1→# Demo project/);
      check.equal(
        await ok('Grep', { pattern: 'shout', path: 'src/util/../util' }),
        'src/util/strings.ts:1:export const shout = (s: string) => s.toUpperCase();',
      );
    },
  },

  // ── Path limits (FILE_PATH_LIMITS): refused before storage is touched, echoed clipped ─────
  {
    name: 'limits: a 40,000-character path is refused at once by every tool, and the message is clipped',
    async run({ call, check, fs }) {
      const path = `${'a/'.repeat(20_000)}x.txt`;
      for (const { name, args } of everyTool(path)) {
        const result = await call(name, args);
        check.ok(result.isError, `${name} with a 40,005-character path should fail`);
        check.match(result.content, /path is 40005 characters long, over the limit of 4096/, name);
        check.ok(result.content.length < 400, `${name} echoed ${result.content.length} characters`);
        check.match(result.content, /: a\/a\/.*….*\/a\/x\.txt: /, `${name} keeps the start and end of the path`);
      }
      const error = await rejection(check, fs.mkdir(path));
      check.ok(isFileSystemError(error, 'invalid-path'), `mkdir: expected invalid-path, got ${String(error)}`);
      check.equal(
        (await fs.list('')).some((entry) => entry.name === 'a'),
        false,
        'nothing was created',
      );
    },
  },
  {
    name: 'limits: 256 folders and names deep works; 257 is refused on every call; .. counts after resolving',
    async run({ ok, fails, fs, check, text }) {
      const folders = (n: number) => Array.from({ length: n }, (_, i) => `d${i % 10}`).join('/');
      const deepest = `${folders(255)}/leaf.txt`;
      check.equal(
        await ok('Write', { path: deepest, content: 'deep\n' }),
        `Created ${displayPathForTest(deepest)}: 5 bytes.`,
      );
      check.equal(await text(deepest), 'deep\n');
      const tooDeep = `${folders(256)}/leaf.txt`;
      for (const tool of ['Write', 'Read'] as const) {
        await fails(
          tool,
          tool === 'Write' ? { path: tooDeep, content: 'x' } : { path: tooDeep },
          /path is 257 folders and names deep, over the limit of 256/,
        );
      }
      const error = await rejection(check, fs.mkdir(folders(257)));
      check.ok(isFileSystemError(error, 'invalid-path'), `mkdir 257 deep: expected invalid-path, got ${String(error)}`);
      check.equal(
        (await fs.list(folders(255))).map((entry) => entry.name),
        ['leaf.txt'],
        'nothing was created past the limit',
      );
      // The limit is on the resolved path: 300 `x/..` pairs name README.md.
      check.match(await ok('Read', { path: `${'x/../'.repeat(300)}README.md` }), /^ {5}1→# Demo project/);
    },
  },
  {
    name: 'limits: a name over 255 bytes (UTF-8) is refused; 255 bytes works',
    async run({ ok, fails, check, text }) {
      const longest = `${'n'.repeat(251)}.txt`;
      await ok('Write', { path: longest, content: 'ok' });
      check.equal(await text(longest), 'ok');
      await fails(
        'Write',
        { path: `${'n'.repeat(252)}.txt`, content: 'x' },
        /a name in the path is over the limit of 255 bytes/,
      );
      // 128 characters, 256 bytes.
      await fails('Write', { path: `docs/${'é'.repeat(128)}`, content: 'x' }, /over the limit of 255 bytes/);
      await fails('Read', { path: `${'é'.repeat(128)}/README.md` }, /over the limit of 255 bytes/);
    },
  },
  {
    name: 'limits: long patterns are echoed clipped too',
    async run({ ok, fails, check }) {
      const word = `zebra${'q'.repeat(10_000)}`;
      const none = await ok('Grep', { pattern: word });
      check.ok(none.length < 400, `Grep echoed ${none.length} characters`);
      check.match(none, /^No matches for \/zebraq+…q+\/ in /);
      const bad = await fails('Grep', { pattern: `(${'q'.repeat(10_000)}` }, /invalid regular expression/);
      check.ok(bad.length < 600, `Grep error echoed ${bad.length} characters`);
      const glob = await fails('Grep', { pattern: 'x', glob: `{${'q'.repeat(10_000)}` }, /invalid glob/);
      check.ok(glob.length < 400, `Grep glob error echoed ${glob.length} characters`);
      const files = await ok('Glob', { pattern: `${'q/'.repeat(200)}*.md` });
      check.ok(files.length < 400, `Glob echoed ${files.length} characters`);
      check.match(files, /^No files match q\/q\/.*….*\/q\/\*\.md\.$/);
      // A pattern's segments are patterns, not names: a long one is matched (and echoed clipped).
      const long = await ok('Glob', { pattern: `{README,${'q'.repeat(3000)}}.md` });
      check.equal(long, 'README.md');
      const unmatched = await ok('Glob', { pattern: `${'q'.repeat(4000)}*.md` });
      check.ok(unmatched.length < 400, `Glob echoed ${unmatched.length} characters`);
      check.match(unmatched, /^No files match q+…q+\*\.md\.$/);
      await fails(
        'Glob',
        { pattern: `${'q'.repeat(4100)}*.md` },
        /path is 4104 characters long, over the limit of 4096/,
      );
    },
  },

  // ── Symbolic links (Node, Deno) ─────────────────────────────────────────────────────────
  {
    name: 'symlink: reading through a link out of the root is refused',
    needs: 'symlinks',
    async run({ fails, check }) {
      for (const path of [LINKS.file, `${LINKS.dir}/secret.txt`]) {
        const text = await fails('Read', { path }, ESCAPES);
        check.notMatch(text, /TOP SECRET/);
      }
      await fails('Grep', { pattern: 'SECRET', path: LINKS.dir }, ESCAPES);
      await fails('Glob', { pattern: '*', path: LINKS.dir }, ESCAPES);
    },
  },
  {
    name: 'symlink: writing or editing through a link out of the root is refused',
    needs: 'symlinks',
    async run({ fails, outside, check }) {
      await fails('Write', { path: `${LINKS.dir}/new.txt`, content: 'pwned' }, ESCAPES);
      await fails('Write', { path: `${LINKS.dir}/sub/new.txt`, content: 'pwned' }, ESCAPES);
      await fails('Write', { path: LINKS.file, content: 'pwned' }, ESCAPES);
      await fails('Edit', { path: LINKS.file, old_string: 'TOP', new_string: 'NOT' }, ESCAPES);
      check.equal(await outside?.read('new.txt'), undefined);
      check.equal(await outside?.read('sub/new.txt'), undefined);
      check.equal(await outside?.read('secret.txt'), SECRET);
    },
  },
  {
    name: 'symlink: a dangling link is refused (writing through it would create a file outside)',
    needs: 'symlinks',
    async run({ fails, outside, check }) {
      await fails('Write', { path: LINKS.dangling, content: 'pwned' }, ESCAPES);
      await fails('Read', { path: LINKS.dangling }, ESCAPES);
      // Deeper below the link: the check finds the first missing level without walking every one.
      await fails('Write', { path: `${LINKS.dangling}/x/y/z.txt`, content: 'pwned' }, ESCAPES);
      check.equal(await outside?.read(LINKS.danglingTarget), undefined);
      check.equal(await outside?.read(`${LINKS.danglingTarget}/x/y/z.txt`), undefined);
    },
  },
  {
    name: 'symlink: Grep and Glob do not follow links while walking',
    needs: 'symlinks',
    async run({ ok, check }) {
      check.match(await ok('Grep', { pattern: 'SECRET' }), /^No matches for \/SECRET\//);
      check.notMatch(await ok('Glob', { pattern: '**' }), /link-|secret/);
    },
  },
  {
    name: 'symlink: a link that stays inside the root works',
    needs: 'symlinks',
    async run({ ok, check }) {
      check.match(await ok('Read', { path: LINKS.inside }), /^ {5}1→# Demo project/);
    },
  },

  // ── Arguments are checked against each tool's schema before its handler runs ────────────
  {
    name: 'schema: unknown or ill-typed arguments are refused before the handler runs',
    async run({ fails, text, check }) {
      await fails('Read', { path: 'README.md', encoding: 'latin1' }, /invalid arguments for "Read"/);
      await fails('Read', { path: 'README.md', offset: 0 }, /invalid arguments for "Read": \/offset/);
      await fails('Write', { path: 'notes.txt' }, /invalid arguments for "Write"/);
      await fails('Grep', { pattern: 'x', ignore_case: 'yes' }, /invalid arguments for "Grep": \/ignore_case/);
      check.equal(await text('notes.txt'), FIXTURE['notes.txt']);
    },
  },

  // ── The FileSystem interface itself ─────────────────────────────────────────────────────
  {
    name: 'fs: stat, list, mkdir -p and writeFile round-trip bytes',
    async run({ fs, check }) {
      check.equal(await fs.stat('README.md'), { isFile: true, isDirectory: false, size: 74 });
      check.equal(await fs.stat(''), { isFile: false, isDirectory: true, size: 0 });
      const entries = (await fs.list('src')).map((e) => `${e.name}:${e.kind}`).sort();
      check.equal(entries, ['config.ts:file', 'main.ts:file', 'util:directory']);
      await fs.mkdir('a/b/c');
      await fs.mkdir('a/b/c'); // again: fine
      check.ok((await fs.stat('a/b/c')).isDirectory, 'a/b/c is a directory');
      const data = new Uint8Array([0, 1, 2, 250, 255]);
      await fs.writeFile('a/b/c/x.bin', data);
      check.equal([...(await fs.readFile('a/b/c/x.bin'))], [...data]);
      check.equal(await readText(fs, 'docs/api.md'), FIXTURE['docs/api.md']);
    },
  },
  {
    name: 'fs: missing paths and wrong kinds fail with their codes',
    async run({ fs, check }) {
      const expectCode = async (promise: Promise<unknown>, code: string, what: string) => {
        const error = await rejection(check, promise);
        check.ok(isFileSystemError(error) && error.code === code, `${what}: expected ${code}, got ${String(error)}`);
      };
      await expectCode(fs.readFile('nope.txt'), 'not-found', 'readFile of a missing file');
      await expectCode(fs.stat('nope'), 'not-found', 'stat of a missing path');
      await expectCode(fs.writeFile('missing-dir/x.txt', 'x'), 'not-found', 'writeFile without its parent');
      await expectCode(fs.readFile('src'), 'not-a-file', 'readFile of a directory');
      await expectCode(fs.list('README.md'), 'not-a-directory', 'list of a file');
      await expectCode(fs.mkdir('README.md'), 'already-exists', 'mkdir over a file');
    },
  },
];

/**
 * Run one case on a fresh root of `backend`: seed the fixture, register the tools, run,
 * dispose. Returns `skipped` for a case the backend cannot run (links on memory and OPFS).
 */
export async function runFileCase(
  fileCase: FileCase,
  backend: Backend,
  check: Check = simpleCheck,
): Promise<'passed' | 'skipped'> {
  const root = await backend.create();
  try {
    if (fileCase.needs === 'symlinks' && !root.outside) return 'skipped';
    await seedFixture(root.fs);
    const registries = new Map<string, ToolRegistry>();
    const registryFor = (options: FileToolsOptions): ToolRegistry => {
      const key = JSON.stringify(options);
      let registry = registries.get(key);
      if (!registry) {
        registry = new ToolRegistry();
        registerFileTools(registry, root.fs, options);
        registries.set(key, registry);
      }
      return registry;
    };
    let id = 0;
    const dispatch = (options: FileToolsOptions, name: string, args: Record<string, unknown>) =>
      registryFor(options).dispatch({ id: `call_${++id}`, name, arguments: JSON.stringify(args) });
    const describe = (name: string, args: Record<string, unknown>) => `${name} ${JSON.stringify(args).slice(0, 200)}`;
    const succeed = async (options: FileToolsOptions, name: string, args: Record<string, unknown>) => {
      const result = await dispatch(options, name, args);
      check.equal(result.isError ? `error: ${result.content}` : 'ok', 'ok', describe(name, args));
      return result.content;
    };
    await fileCase.run({
      fs: root.fs,
      outside: root.outside,
      check,
      call: (name, args) => dispatch({}, name, args),
      ok: (name, args) => succeed({}, name, args),
      okWith: succeed,
      async fails(name, args, pattern) {
        const result = await dispatch({}, name, args);
        check.ok(result.isError, `${describe(name, args)} should fail, got: ${result.content.slice(0, 300)}`);
        check.match(result.content, pattern, describe(name, args));
        return result.content;
      },
      text: (path) => readText(root.fs, path),
    });
    return 'passed';
  } finally {
    await root.dispose?.();
  }
}
