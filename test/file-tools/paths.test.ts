/** Path rules and glob matching, on their own. */
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clipMiddle, displayPath, FILE_PATH_LIMITS, SHOWN_PATH_CHARS } from '../../src/file-tools/file-system.js';
import { FileSystemError, globToRegExp, normalizePath, pathSegments } from '../../src/file-tools/file-tools.js';
import { globMatcher } from '../../src/file-tools/glob-pattern.js';
import { type HostOps, rootedHostFileSystem } from '../../src/file-tools/host-file-system.js';
import { PatternBudget } from '../../src/file-tools/pattern-budget.js';
import { decodeText, formatSize, splitLines } from '../../src/file-tools/text.js';

describe('pathSegments / normalizePath', () => {
  it.each([
    ['', ''],
    ['.', ''],
    ['./README.md', 'README.md'],
    ['src//main.ts', 'src/main.ts'],
    ['src/./a/../main.ts', 'src/main.ts'],
    ['a/b/../../c', 'c'],
    ['src\\util\\strings.ts', 'src/util/strings.ts'],
    ['~/x', '~/x'],
  ])('%j → %j', (path, expected) => {
    expect(normalizePath(path)).toBe(expected);
  });

  it.each([
    '..',
    '../x',
    'a/../../x',
    '/etc/passwd',
    '//host/share',
    '\\\\host\\share',
    '..\\x',
    'C:\\x',
    'c:x',
    'src/../../..',
  ])('%j escapes the root', (path) => {
    expect(() => pathSegments(path)).toThrow(FileSystemError);
    expect(() => pathSegments(path)).toThrow(/path escapes the root/);
  });

  it('a NUL byte is an invalid path, shown escaped', () => {
    expect(() => pathSegments('a\0b')).toThrow(/"a\\u0000b": invalid path: it contains a NUL byte/);
  });
});

describe('globToRegExp and globMatcher', () => {
  const budget = () => new PatternBudget(1_000_000, new AbortController().signal, 'Glob');
  const matches = (glob: string, path: string) => {
    const linear = globMatcher(glob, 100_000).test(path, budget());
    expect(linear, 'globMatcher agrees with globToRegExp').toBe(globToRegExp(glob).test(path));
    return linear;
  };

  it.each([
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/a/b.ts', true],
    ['**/*.ts', 'src/a/b.tsx', false],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/a.md', false],
    ['src/**', 'src/a/b/c.txt', true],
    ['src/**', 'srcx/a', false],
    ['src/**/test/*.ts', 'src/test/a.ts', true],
    ['src/**/test/*.ts', 'src/x/y/test/a.ts', true],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['[ab]*.txt', 'beta.txt', true],
    ['[!ab]*.txt', 'beta.txt', false],
    ['[!ab]*.txt', 'gamma.txt', true],
    ['{src,test}/*.{ts,js}', 'test/x.js', true],
    ['{src,test}/*.{ts,js}', 'lib/x.js', false],
    ['{a,{b,c}}.txt', 'c.txt', true],
    ['file(1).txt', 'file(1).txt', true],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
    ['[unclosed', '[unclosed', true],
    ['a**b', 'axxb', true],
    ['a**b', 'a/b', false],
    ['**', 'a/b', true],
    ['x/**/*.md', 'x/a.md', true],
    ['[a-c]/*', 'b/x', true],
    ['{a,b}}', 'a}', true],
    ['a,b', 'a,b', true],
  ])('%s on %s → %s', (glob, path, expected) => {
    expect(matches(glob, path)).toBe(expected);
  });

  it('an unclosed brace is an error', () => {
    expect(() => globToRegExp('{a,b')).toThrow(/a "\{" is not closed/);
    expect(() => globMatcher('{a,b', 100_000)).toThrow(/a "\{" is not closed/);
  });
});

describe('text helpers', () => {
  it('binary: NUL in the first 8 KB, or invalid UTF-8 anywhere', () => {
    expect(decodeText(new TextEncoder().encode('héllo ✓'))).toBe('héllo ✓');
    expect(decodeText(new Uint8Array([0x61, 0x00, 0x62]))).toBeUndefined();
    const lateNul = new Uint8Array(9000).fill(0x61);
    lateNul[8999] = 0; // a NUL past the sniffed window is valid UTF-8 text
    expect(decodeText(lateNul)).toHaveLength(9000);
    expect(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).toBeUndefined();
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe('\ufeffa'); // the BOM is kept
  });

  it('lines: CRLF and LF alike, no phantom last line', () => {
    expect(splitLines('a\r\nb\nc')).toEqual(['a', 'b', 'c']);
    expect(splitLines('a\n')).toEqual(['a']);
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('')).toEqual([]);
  });

  it('sizes', () => {
    expect([512, 2048, 2 * 1024 * 1024, 10_485_760, 1_500_000].map(formatSize)).toEqual([
      '512 bytes',
      '2 KB',
      '2 MB',
      '10 MB',
      '1.4 MB',
    ]);
  });
});

describe('rootedHostFileSystem error messages', () => {
  /** Host primitives over a fake tree where every read fails with a host error naming an absolute path. */
  const failing = (error: unknown): HostOps => ({
    kind: 'fake',
    root: '/srv/secret-location/root',
    separator: '/',
    join: (base, names) => [base, ...names].join('/'),
    realpath: async (path) => String(path),
    lexists: async () => true,
    readFile: async () => {
      throw error;
    },
    writeFile: async () => undefined,
    stat: async () => ({ isFile: true, isDirectory: false, size: 1 }),
    readDir: async () => [],
    mkdir: async () => undefined,
    errorCode: (e) => ((e as { code?: string }).code === 'EACCES' ? 'permission-denied' : undefined),
  });

  it('maps a known host error to its code and never shows the host path', async () => {
    const error = Object.assign(new Error("EACCES: permission denied, open '/srv/secret-location/root/a.txt'"), {
      code: 'EACCES',
    });
    const fs = rootedHostFileSystem(failing(error));
    await expect(fs.readFile('a.txt')).rejects.toThrow(/^a\.txt: permission denied$/);
  });

  it('an unknown host error shows its short code only', async () => {
    const error = Object.assign(new Error("EIO: i/o error, read '/srv/secret-location/root/a.txt'"), { code: 'EIO' });
    const fs = rootedHostFileSystem(failing(error));
    await expect(fs.readFile('a.txt')).rejects.toThrow(/^a\.txt: input\/output error \(EIO\)$/);
  });
});

describe('path limits and clipped messages', () => {
  it('4,096 characters pass and 4,097 do not; the limits are checked before anything else', () => {
    const name = 'n'.repeat(255);
    const atLimit = `${Array.from({ length: 16 }, () => name).join('/')}/`;
    expect(atLimit).toHaveLength(FILE_PATH_LIMITS.maxChars);
    expect(pathSegments(atLimit)).toHaveLength(16);
    expect(() => pathSegments(`${atLimit}/`)).toThrow(/path is 4097 characters long, over the limit of 4096/);
    expect(() => pathSegments(`${'../'.repeat(2000)}`)).toThrow(/over the limit of 4096/);
    expect(pathSegments(Array.from({ length: 256 }, () => 'd').join('/'))).toHaveLength(256);
    expect(() => pathSegments(Array.from({ length: 257 }, () => 'd').join('/'))).toThrow(
      /257 folders and names deep, over the limit of 256/,
    );
    expect(() => pathSegments('ü'.repeat(128))).toThrow(/over the limit of 255 bytes/); // 128 characters, 256 bytes
    expect(pathSegments('ü'.repeat(127))).toHaveLength(1);
  });

  it('a long path is shown by its start and end, at most 200 characters, surrogate pairs kept whole', () => {
    const path = `${'a/'.repeat(20_000)}x.txt`;
    const shown = displayPath(path);
    expect(shown).toHaveLength(SHOWN_PATH_CHARS);
    expect(shown.startsWith('a/a/')).toBe(true);
    expect(shown.endsWith('/a/x.txt')).toBe(true);
    expect(shown).toContain('…');
    expect(displayPath('short/path.md')).toBe('short/path.md');
    expect(clipMiddle('abcdefghij', 5)).toBe('ab…ij');
    const emoji = clipMiddle('😀'.repeat(10), 6); // 20 UTF-16 units
    expect(emoji).toBe('😀…😀');
    expect(new FileSystemError('not-found', path).message.length).toBeLessThan(250);
  });
});

describe('rootedHostFileSystem containment cost', () => {
  /** Host primitives over the real disk, counting every call. */
  function countingNodeOps(root: string) {
    const counts = { realpath: 0, lexists: 0, other: 0 };
    const ops: HostOps = {
      kind: 'counting-node',
      root,
      separator: '/',
      join: (base, names) => (names.length === 0 ? base : `${base}/${names.join('/')}`),
      realpath: async (path) => {
        counts.realpath++;
        return realpath(path);
      },
      lexists: async (path) => {
        counts.lexists++;
        return lstat(path).then(
          () => true,
          () => false,
        );
      },
      readFile: async (path) => {
        counts.other++;
        return new Uint8Array(await readFile(path));
      },
      writeFile: async (path, data) => {
        counts.other++;
        await writeFile(path, data);
      },
      stat: async (path) => {
        counts.other++;
        const info = await stat(path);
        return { isFile: info.isFile(), isDirectory: info.isDirectory(), size: info.size };
      },
      readDir: async () => [],
      mkdir: async (path) => {
        counts.other++;
        await mkdir(path, { recursive: true });
      },
      errorCode: (error) => ((error as { code?: string }).code === 'ENOENT' ? 'not-found' : undefined),
    };
    return { ops, counts };
  }

  it('a path over the limits is refused before any host call', async () => {
    const base = await mkdtemp(join(tmpdir(), 'loopctl-limits-'));
    try {
      const { ops, counts } = countingNodeOps(base);
      const fs = rootedHostFileSystem(ops);
      await expect(fs.writeFile(`${'a/'.repeat(20_000)}x.txt`, 'x')).rejects.toThrow(/over the limit of 4096/);
      await expect(fs.mkdir(Array.from({ length: 300 }, () => 'd').join('/'))).rejects.toThrow(/over the limit of 256/);
      expect(counts).toEqual({ realpath: 0, lexists: 0, other: 0 });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('checking a new 250-deep path takes a few realpath calls, not one per level', async () => {
    const base = await mkdtemp(join(tmpdir(), 'loopctl-limits-'));
    try {
      const { ops, counts } = countingNodeOps(base);
      const fs = rootedHostFileSystem(ops);
      await fs.stat(''); // resolves the root once
      counts.realpath = 0;
      const deep = Array.from({ length: 249 }, (_, i) => `d${i}`).join('/');
      await fs.mkdir(deep);
      // One for the whole path, one for its parent, then a binary search: 2 + ⌈log2 249⌉.
      expect(counts.realpath).toBeLessThanOrEqual(10);
      expect(counts.lexists).toBe(1);
      expect((await stat(join(base, ...deep.split('/')))).isDirectory()).toBe(true);

      counts.realpath = 0;
      await fs.writeFile(`${deep}/leaf.txt`, 'leaf'); // the parent exists: two calls
      expect(counts.realpath).toBe(2);
      expect(await readFile(join(base, ...deep.split('/'), 'leaf.txt'), 'utf8')).toBe('leaf');

      counts.realpath = 0;
      expect(new TextDecoder().decode(await fs.readFile(`${deep}/leaf.txt`))).toBe('leaf'); // it exists: one call
      expect(counts.realpath).toBe(1);

      // Half of it exists: still a handful.
      counts.realpath = 0;
      const half = Array.from({ length: 120 }, (_, i) => `d${i}`).join('/');
      await fs.mkdir(`${half}/${Array.from({ length: 130 }, (_, i) => `e${i}`).join('/')}`);
      expect(counts.realpath).toBeLessThanOrEqual(10);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
