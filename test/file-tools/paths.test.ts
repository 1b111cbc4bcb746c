/** Path rules and glob matching, on their own. */
import { describe, expect, it } from 'vitest';
import { FileSystemError, globToRegExp, normalizePath, pathSegments } from '../../src/file-tools/file-tools.js';
import { rootedHostFileSystem, type HostOps } from '../../src/file-tools/host-file-system.js';
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

  it.each(['..', '../x', 'a/../../x', '/etc/passwd', '//host/share', '\\\\host\\share', '..\\x', 'C:\\x', 'c:x', 'src/../../..'])(
    '%j escapes the root',
    (path) => {
      expect(() => pathSegments(path)).toThrow(FileSystemError);
      expect(() => pathSegments(path)).toThrow(/path escapes the root/);
    },
  );

  it('a NUL byte is an invalid path, shown escaped', () => {
    expect(() => pathSegments('a\0b')).toThrow(/"a\\u0000b": invalid path: it contains a NUL byte/);
  });
});

describe('globToRegExp', () => {
  const matches = (glob: string, path: string) => globToRegExp(glob).test(path);

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
  ])('%s on %s → %s', (glob, path, expected) => {
    expect(matches(glob, path)).toBe(expected);
  });

  it('an unclosed brace is an error', () => {
    expect(() => globToRegExp('{a,b')).toThrow(/a "\{" is not closed/);
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
    expect([512, 2048, 2 * 1024 * 1024, 10_485_760, 1_500_000].map(formatSize)).toEqual(['512 bytes', '2 KB', '2 MB', '10 MB', '1.4 MB']);
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
    const error = Object.assign(new Error("EACCES: permission denied, open '/srv/secret-location/root/a.txt'"), { code: 'EACCES' });
    const fs = rootedHostFileSystem(failing(error));
    await expect(fs.readFile('a.txt')).rejects.toThrow(/^a\.txt: permission denied$/);
  });

  it('an unknown host error shows its short code only', async () => {
    const error = Object.assign(new Error("EIO: i/o error, read '/srv/secret-location/root/a.txt'"), { code: 'EIO' });
    const fs = rootedHostFileSystem(failing(error));
    await expect(fs.readFile('a.txt')).rejects.toThrow(/^a\.txt: input\/output error \(EIO\)$/);
  });
});
