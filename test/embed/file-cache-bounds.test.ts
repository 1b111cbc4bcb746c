/**
 * The file vector cache keeps a bounded folder: tool lists can come from clients (the proxy),
 * and a folder that kept every list ever sent would grow without end.
 */
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileVectorCache } from '../../src/adapters/file-cache.js';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'loopctl-file-cache-'));
  folders.push(made);
  return made;
}

// Each entry's file gets a distinct modification time, in write order (mtime has coarse ticks).
async function age(directory: string, seconds: number): Promise<void> {
  for (const name of await readdir(directory)) {
    const at = new Date(Date.now() - seconds * 1000);
    await utimes(join(directory, name), at, at);
  }
}

describe('fileVectorCache bounds', () => {
  it('keeps at most maxEntries, the least recently used going first (a read renews)', async () => {
    const directory = await folder();
    const cache = fileVectorCache({ directory, maxEntries: 3 });
    for (const [i, key] of ['a', 'b', 'c'].entries()) {
      await cache.set(key, new Uint8Array([i]));
      await age(directory, 100 - i * 10); // a oldest, then b, then c
    }
    expect(await cache.get('a')).toEqual(new Uint8Array([0])); // a is now the most recent
    await cache.set('d', new Uint8Array([3]));
    expect((await readdir(directory)).filter((name) => name.endsWith('.bin'))).toHaveLength(3);
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toEqual(new Uint8Array([0]));
    expect(await cache.get('d')).toEqual(new Uint8Array([3]));
  });

  it('keeps at most maxBytes', async () => {
    const directory = await folder();
    const cache = fileVectorCache({ directory, maxBytes: 2500 });
    for (const key of ['x', 'y', 'z']) {
      await cache.set(key, new Uint8Array(1000));
      await age(directory, 10);
    }
    const left = (await readdir(directory)).filter((name) => name.endsWith('.bin'));
    expect(left).toHaveLength(2);
    expect(await cache.get('x')).toBeUndefined();
  });

  it('never holds more than maxEntries, however many keys are written', async () => {
    const directory = await folder();
    const cache = fileVectorCache({ directory, maxEntries: 20 });
    for (let i = 0; i < 30; i++) await cache.set(`key-${i}`, new Uint8Array([i]));
    expect((await readdir(directory)).filter((name) => name.endsWith('.bin')).length).toBe(20);
  });
});
