/**
 * The file-tool case table (test/file-tools/file-cases.ts) on the in-memory backend and on Node's
 * file system in a temporary directory, with symbolic links pointing out of the root.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryFileSystem, registerFileTools } from '../../src/file-tools/file-tools.js';
import { nodeFileSystem } from '../../src/file-tools/node-file-system.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { type Backend, type Check, FILE_CASES, LINKS, runFileCase, SECRET } from './file-cases.js';

/** The table's assertions as vitest expectations, for readable diffs. */
const vitestCheck: Check = {
  ok: (value, message) => expect(value, message).toBeTruthy(),
  equal: (actual, expected, message) => expect(actual, message).toEqual(expected),
  match: (text, pattern, message) => expect(text, message).toMatch(pattern),
  notMatch: (text, pattern, message) => expect(text, message).not.toMatch(pattern),
};

const memory: Backend = { name: 'memory', create: async () => ({ fs: memoryFileSystem() }) };

/** A temporary `root/` beside an `outside/` holding the secret, with links from one into the other. */
const node: Backend = {
  name: 'node',
  async create() {
    const base = await mkdtemp(join(tmpdir(), 'loopctl-files-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    await mkdir(root);
    await mkdir(outside);
    await writeFile(join(outside, 'secret.txt'), SECRET);
    await symlink(outside, join(root, LINKS.dir));
    await symlink(join(outside, 'secret.txt'), join(root, LINKS.file));
    await symlink(join(outside, LINKS.danglingTarget), join(root, LINKS.dangling));
    await symlink('README.md', join(root, LINKS.inside));
    return {
      fs: nodeFileSystem(root),
      outside: { read: (name: string) => readFile(join(outside, name), 'utf8').catch(() => undefined) },
      dispose: () => rm(base, { recursive: true, force: true }),
    };
  },
};

describe.each([memory, node])('file tools on the $name backend', (backend) => {
  it.for(FILE_CASES)('$name', async (fileCase, context) => {
    const outcome = await runFileCase(fileCase, backend, vitestCheck);
    if (outcome === 'skipped') context.skip('this backend has no symbolic links');
  });
});

describe('nodeFileSystem', () => {
  it('reports a missing root clearly, and works once it exists', async () => {
    const base = await mkdtemp(join(tmpdir(), 'loopctl-files-'));
    try {
      const fs = nodeFileSystem(join(base, 'later'));
      await expect(fs.stat('')).rejects.toThrow(/the root directory .*later is not usable/);
      await mkdir(join(base, 'later'));
      await expect(fs.stat('')).resolves.toEqual({ isFile: false, isDirectory: true, size: 0 });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('a tree made deeper than the limits on disk: Grep and Glob pass over it and say so; Read refuses it', async () => {
    const base = await mkdtemp(join(tmpdir(), 'loopctl-files-'));
    try {
      const folders = Array.from({ length: 300 }, (_, i) => `f${i % 10}`);
      await mkdir(join(base, ...folders), { recursive: true });
      await writeFile(join(base, ...folders, 'deep.txt'), 'needle down here\n');
      await writeFile(join(base, ...folders.slice(0, 100), 'shallow.txt'), 'needle up here\n');
      const registry = new ToolRegistry();
      registerFileTools(registry, nodeFileSystem(base));
      const call = (name: string, args: Record<string, unknown>) =>
        registry.dispatch({ id: name, name, arguments: JSON.stringify(args) });
      const shallow = `${folders.slice(0, 100).join('/')}/shallow.txt`;

      const glob = await call('Glob', { pattern: '**/*.txt' });
      expect(glob.isError).toBeFalsy();
      expect(glob.content).toBe(
        `${shallow}\n\n(1 entry not visited: deeper than 256 levels or longer than 4096 characters)`,
      );
      const grep = await call('Grep', { pattern: 'needle' });
      expect(grep.content).toBe(
        `${shallow}:1:needle up here\n\n(1 entry not visited: deeper than 256 levels or longer than 4096 characters)`,
      );
      const read = await call('Read', { path: `${folders.join('/')}/deep.txt` });
      expect(read.isError).toBe(true);
      expect(read.content).toMatch(/path is 301 folders and names deep, over the limit of 256/);
      expect(read.content.length).toBeLessThan(400);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('accepts a root that is itself reached through a link', async () => {
    const base = await mkdtemp(join(tmpdir(), 'loopctl-files-'));
    try {
      await mkdir(join(base, 'real'));
      await writeFile(join(base, 'real', 'a.txt'), 'A');
      await symlink(join(base, 'real'), join(base, 'alias'));
      const fs = nodeFileSystem(join(base, 'alias'));
      expect(new TextDecoder().decode(await fs.readFile('a.txt'))).toBe('A');
      await fs.writeFile('b.txt', 'B');
      expect(await readFile(join(base, 'real', 'b.txt'), 'utf8')).toBe('B');
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
