/**
 * A shared vector cache (KV, files, IndexedDB, one isolate's memory) is read by every tenant's
 * requests, so a tool list one client chooses must never land on another list's key. The
 * fixture's attacker list met the victim's under the old 64-bit key (see poisoning-fixture.ts).
 */
import { describe, expect, it } from 'vitest';
import { digestHex } from '../../src/digest.js';
import { CorpusIndex } from '../../src/embed/corpus-index.js';
import { Hash64 } from '../../src/hash.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { sha256 } from '../../src/sha256.js';
import { toolText } from '../../src/text/words.js';
import { countingEmbedder, ctx, mapCache } from './counting-embedder.js';
import { attackerTools as attacker, VICTIM_PROMPT as prompt, victimTools as victim } from './poisoning-fixture.js';

// The key main built before SHA-256 (corpus:v1), for the embedder the test uses.
function oldKey(all: readonly ToolSchema[]): string {
  const hash = new Hash64().update('loopctl/corpus/v1').update('test/bow-256').update('256');
  hash.update(String(all.length));
  for (const item of all) hash.update(item.name).update(toolText(item.name, item.description));
  return hash.digest();
}

const noSignal = { signal: new AbortController().signal };

describe('a chosen tool list cannot poison a shared vector cache', () => {
  it('the fixture is a real collision of the old 64-bit key', () => {
    expect(oldKey(attacker())).toBe(oldKey(victim()));
  });

  it('the two lists get different keys now', async () => {
    const embedder = countingEmbedder();
    const index = new CorpusIndex(embedder, mapCache());
    const key = await index.keyFor(victim());
    expect(key).not.toBe(await index.keyFor(attacker()));
    expect(key).toMatch(/^corpus:v2:[0-9a-f]{8}:3x256:[0-9a-f]{64}$/);
  });

  for (const isolates of ['one isolate (one cache object)', 'two isolates (one store)'] as const) {
    it(`the victim ranks with its own vectors after the attacker's list went first: ${isolates}`, async () => {
      const store = new Map<string, Uint8Array>();
      const shared = mapCache(store);
      const attackerSelector = new EmbeddingSelector(countingEmbedder(), { cache: shared, topK: 1 });
      await attackerSelector.select(ctx('anything at all'), attacker(), noSignal);
      expect(store.size).toBe(1);

      const victimCache = isolates.startsWith('one') ? shared : mapCache(store);
      const victimSelector = new EmbeddingSelector(countingEmbedder(), { cache: victimCache, topK: 1 });
      const output = await victimSelector.select(ctx(prompt), victim(), noSignal);
      expect(output.fellOpen).toBeUndefined();
      expect(output.tools.map((item) => item.name)).toEqual(['get_weather']);
      expect(store.size).toBe(2);
    });
  }

  it('an entry stored under the victim key but written for other texts is refused and rebuilt', async () => {
    const store = new Map<string, Uint8Array>();
    const first = new CorpusIndex(countingEmbedder(), mapCache(store));
    const attackerCorpus = (await first.load(attacker())).corpus;
    const victimKey = await first.keyFor(victim());
    // A store that mixed its keys up (or was written to by hand): the attacker's bytes, victim's key.
    store.set(victimKey, store.get(attackerCorpus.key) as Uint8Array);

    const index = new CorpusIndex(countingEmbedder(), mapCache(store));
    const { warnings } = await index.load(victim());
    expect(warnings.join(' ')).toMatch(/other tool texts/);
    expect(index.stats).toMatchObject({ rebuiltCorrupt: 1, cacheHits: 0 });
  });
});

describe('digest', () => {
  it('is SHA-256 over framed parts, with or without WebCrypto', async () => {
    const { createHash } = await import('node:crypto');
    const parts = ['loopctl', 'ünïcödé ✓', '', 'a'.repeat(1000)];
    const framed = Buffer.concat(
      parts.map((part) => {
        const bytes = Buffer.from(part, 'utf8');
        const head = Buffer.alloc(5);
        head[0] = 0x75;
        head.writeUInt32BE(bytes.byteLength, 1);
        return Buffer.concat([head, bytes]);
      }),
    );
    expect(await digestHex(parts)).toBe(createHash('sha256').update(framed).digest('hex'));
    for (const size of [0, 1, 55, 56, 63, 64, 65, 1000, 100_000]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 0xff);
      expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('keeps part boundaries and unpaired surrogates apart', async () => {
    expect(await digestHex(['ab', 'c'])).not.toBe(await digestHex(['a', 'bc']));
    // TextEncoder writes both as U+FFFD; the framing must not.
    expect(await digestHex(['x\uD800'])).not.toBe(await digestHex(['x\uDBFF']));
    expect(await digestHex(['x\uD800'])).not.toBe(await digestHex(['x\uFFFD']));
  });
});
