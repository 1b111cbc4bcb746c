import { describe, expect, it } from 'vitest';
import { type KvNamespaceLike, kvVectorCache } from '../../src/adapters/kv.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { countingEmbedder, ctx, registry } from './counting-embedder.js';

/** Behaves like a KV binding: binary values copied in and out, null on a miss, 25 MiB cap. */
function fakeKv() {
  const store = new Map<string, ArrayBuffer>();
  const puts: Array<{ key: string; bytes: number; options: unknown }> = [];
  const kv: KvNamespaceLike & { store: typeof store; puts: typeof puts } = {
    store,
    puts,
    async get(key, type) {
      expect(type).toBe('arrayBuffer');
      const value = store.get(key);
      return value ? value.slice(0) : null;
    },
    async put(key, value, options) {
      expect(value).toBeInstanceOf(ArrayBuffer);
      if (value.byteLength > 25 * 1024 * 1024) throw new Error('value too large');
      if (new TextEncoder().encode(key).byteLength > 512) throw new Error('key too long');
      puts.push({ key, bytes: value.byteLength, options });
      store.set(key, value.slice(0));
    },
    async delete(key) {
      store.delete(key);
    },
  };
  return kv;
}

const bytes = (length: number, seed = 1) => new Uint8Array(length).map((_, i) => (i * 13 + seed) & 0xff);

describe('kvVectorCache', () => {
  it('misses cleanly on an absent key', async () => {
    expect(await kvVectorCache(fakeKv()).get('nope')).toBeUndefined();
  });

  it('stores a small value inline under one prefixed key', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { prefix: 'test:' });
    await cache.set('a', bytes(100));
    expect([...kv.store.keys()]).toEqual(['test:a']);
    expect(await cache.get('a')).toEqual(bytes(100));
  });

  it('splits a large value across chunks under a manifest', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    const value = bytes(1000);
    await cache.set('big', value);
    const keys = [...kv.store.keys()];
    expect(keys.filter((key) => key.startsWith('loopctl:big#chunk'))).toHaveLength(16);
    expect(keys).toContain('loopctl:big');
    expect(Math.max(...kv.puts.map((put) => put.bytes))).toBeLessThanOrEqual(64);
    // manifest written last
    expect(kv.puts.at(-1)?.key).toBe('loopctl:big');
    expect(await cache.get('big')).toEqual(value);
  });

  it('an exact multiple of the chunk size round-trips', async () => {
    const cache = kvVectorCache(fakeKv(), { chunkBytes: 50 });
    await cache.set('k', bytes(200));
    expect(await cache.get('k')).toEqual(bytes(200));
  });

  it('a missing chunk is a miss, not a crash', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    await cache.set('big', bytes(1000));
    kv.store.delete('loopctl:big#chunk7');
    expect(await cache.get('big')).toBeUndefined();
  });

  it('a short or altered chunk is a miss', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    await cache.set('big', bytes(1000));
    kv.store.set('loopctl:big#chunk3', new Uint8Array(10).buffer);
    expect(await cache.get('big')).toBeUndefined();

    await cache.set('big', bytes(1000));
    const altered = new Uint8Array(kv.store.get('loopctl:big#chunk3') as ArrayBuffer);
    altered[5] = (altered[5] as number) ^ 1;
    kv.store.set('loopctl:big#chunk3', altered.buffer);
    expect(await cache.get('big')).toBeUndefined();
  });

  it('chunks mixed from two writes (eventual consistency) are a miss', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    await cache.set('big', bytes(1000, 1));
    const stale = kv.store.get('loopctl:big#chunk2') as ArrayBuffer;
    await cache.set('big', bytes(1000, 2));
    kv.store.set('loopctl:big#chunk2', stale);
    expect(await cache.get('big')).toBeUndefined();
  });

  it('a foreign or garbage value under the key is a miss', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv);
    kv.store.set('loopctl:x', new TextEncoder().encode('{"hello":1}').buffer as ArrayBuffer);
    expect(await cache.get('x')).toBeUndefined();
    kv.store.set('loopctl:y', new ArrayBuffer(0));
    expect(await cache.get('y')).toBeUndefined();
  });

  it('overwriting with a shorter value removes stale chunks', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    await cache.set('big', bytes(1000));
    await cache.set('big', bytes(150));
    expect([...kv.store.keys()].filter((key) => key.includes('#chunk'))).toHaveLength(3);
    expect(await cache.get('big')).toEqual(bytes(150));
    await cache.set('big', bytes(10));
    expect([...kv.store.keys()]).toEqual(['loopctl:big']);
    expect(await cache.get('big')).toEqual(bytes(10));
  });

  it('delete removes the manifest and its chunks', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    await cache.set('big', bytes(1000));
    await cache.set('other', bytes(5));
    await cache.delete?.('big');
    expect([...kv.store.keys()]).toEqual(['loopctl:other']);
    expect(await cache.get('big')).toBeUndefined();
  });

  it('passes expirationTtl to every put', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64, expirationTtl: 3600 });
    await cache.set('big', bytes(200));
    expect(kv.puts.length).toBeGreaterThan(1);
    for (const put of kv.puts) expect(put.options).toEqual({ expirationTtl: 3600 });
  });

  it('hashes keys that would exceed KV’s 512-byte limit', async () => {
    const kv = fakeKv();
    const cache = kvVectorCache(kv, { chunkBytes: 64 });
    const long = 'k'.repeat(600);
    await cache.set(long, bytes(300));
    expect(await cache.get(long)).toEqual(bytes(300));
    expect(await cache.get('k'.repeat(601))).toBeUndefined();
    // A SHA-256 of the key, not a 64-bit hash: a shared namespace, so no chosen key reaches another's.
    const { createHash } = await import('node:crypto');
    const framed = (part: string) => {
      const body = Buffer.from(part);
      const head = Buffer.alloc(5);
      head[0] = 0x75;
      head.writeUInt32BE(body.byteLength, 1);
      return Buffer.concat([head, body]);
    };
    const digest = createHash('sha256')
      .update(Buffer.concat([framed('loopctl/kv-key/v1'), framed(long)]))
      .digest('hex');
    expect([...kv.store.keys()].some((key) => key.startsWith(`loopctl:#${digest}`))).toBe(true);
  });

  it('rejects a nonsensical chunk size', () => {
    expect(() => kvVectorCache(fakeKv(), { chunkBytes: 0 })).toThrow(RangeError);
  });

  it('backs an EmbeddingSelector across isolates, chunked', async () => {
    const kv = fakeKv();
    const all = registry();
    const first = new EmbeddingSelector(countingEmbedder(), { cache: kvVectorCache(kv, { chunkBytes: 1000 }) });
    await first.select(ctx('weather'), all, { signal: new AbortController().signal });
    expect([...kv.store.keys()].filter((key) => key.includes('#chunk')).length).toBeGreaterThan(5);

    const embedder = countingEmbedder();
    const second = new EmbeddingSelector(embedder, { cache: kvVectorCache(kv, { chunkBytes: 1000 }) });
    const output = await second.select(ctx('weather'), all, { signal: new AbortController().signal });
    expect(second.stats).toMatchObject({ corpusEmbeds: 0, cacheHits: 1 });
    expect(output.tools.map((tool) => tool.name)).toContain('get_weather');

    // A lost chunk rebuilds instead of failing.
    const chunk = [...kv.store.keys()].find((key) => key.endsWith('#chunk2')) as string;
    kv.store.delete(chunk);
    const third = new EmbeddingSelector(countingEmbedder(), { cache: kvVectorCache(kv, { chunkBytes: 1000 }) });
    const rebuilt = await third.select(ctx('weather'), all, { signal: new AbortController().signal });
    expect(third.stats).toMatchObject({ cacheHits: 0, cacheMisses: 1, corpusEmbeds: all.length });
    expect(rebuilt.tools).toEqual(output.tools);
  });
});
