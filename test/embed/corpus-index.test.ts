import { describe, expect, it } from 'vitest';
import { CORPUS_HEADER_BYTES, decodeCorpus, encodeCorpus } from '../../src/embed/corpus-codec.js';
import { CorpusError, CorpusIndex } from '../../src/embed/corpus-index.js';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import { checksumBytes, Hash64, hashStrings } from '../../src/hash.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { toolText } from '../../src/text/words.js';
import { countingEmbedder, mapCache, registry } from './counting-embedder.js';

const expectedTexts = (all: readonly ToolSchema[]) => all.map((tool) => toolText(tool.name, tool.description));

describe('corpus hash', () => {
  it('is stable and sensitive to boundaries and seeds', () => {
    expect(hashStrings(['a', 'bc'])).toBe(hashStrings(['a', 'bc']));
    expect(hashStrings(['a', 'bc'])).not.toBe(hashStrings(['ab', 'c']));
    expect(hashStrings(['x'], 1)).not.toBe(hashStrings(['x']));
    expect(new Hash64().update('x').digest()).toMatch(/^[0-9a-f]{16}$/);
  });

  it('checksum changes on any flipped byte, aligned or not', () => {
    const bytes = new Uint8Array(37).map((_, i) => i * 7);
    const base = checksumBytes(bytes);
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice();
      copy[i] = (copy[i] as number) ^ 0x10;
      expect(checksumBytes(copy)).not.toBe(base);
    }
    const unaligned = new Uint8Array(40);
    unaligned.set(bytes, 1);
    expect(checksumBytes(unaligned.subarray(1, 38))).toBe(base);
    expect(checksumBytes(bytes.subarray(0, 36))).not.toBe(base);
  });
});

describe('corpus codec', () => {
  const keyDigest = new Uint8Array(32).fill(11);
  const shape = { dimensions: 3, count: 2, keyDigest };
  const matrix = new Float32Array([1, 0, 0, 0, 0.6, 0.8]);

  it('round-trips', () => {
    const decoded = decodeCorpus(encodeCorpus(matrix, shape), shape);
    expect(decoded.ok && [...decoded.matrix]).toEqual([...matrix]);
  });

  it('refuses every kind of damage with a reason', () => {
    const bytes = encodeCorpus(matrix, shape);
    const flip = (at: number) => {
      const copy = bytes.slice();
      copy[at] = (copy[at] as number) ^ 1;
      return copy;
    };
    const cases: Array<[Uint8Array, typeof shape, RegExp]> = [
      [bytes.slice(0, bytes.length - 1), shape, /bytes, expected/],
      [bytes.slice(0, 10), shape, /shorter than its header/],
      [flip(0), shape, /magic/],
      [flip(9), shape, /header checksum/],
      [flip(CORPUS_HEADER_BYTES + 5), shape, /payload checksum/],
      [bytes, { ...shape, dimensions: 4 }, /3 dimensions, expected 4/],
      [bytes, { ...shape, count: 3 }, /2 vectors, expected 3/],
      [bytes, { ...shape, keyDigest: keyDigest.map((byte, i) => (i === 31 ? byte ^ 1 : byte)) }, /other tool texts/],
      [encodeCorpus(new Float32Array([1, 0, 0, 0, Number.NaN, 0]), shape), shape, /non-finite/],
    ];
    for (const [input, expectation, reason] of cases) {
      const decoded = decodeCorpus(input, expectation);
      expect(decoded.ok).toBe(false);
      if (!decoded.ok) expect(decoded.reason).toMatch(reason);
    }
  });

  it('decodes from an unaligned view', () => {
    const bytes = encodeCorpus(matrix, shape);
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    const decoded = decodeCorpus(padded.subarray(3), shape);
    expect(decoded.ok && [...decoded.matrix]).toEqual([...matrix]);
  });
});

describe('CorpusIndex', () => {
  it('embeds each text once, in registry order, as unit rows', async () => {
    const embedder = countingEmbedder();
    const index = new CorpusIndex(embedder, memoryVectorCache());
    const all = registry();
    const { corpus, warnings } = await index.load(all);
    expect(warnings).toEqual([]);
    expect(corpus.texts).toEqual(expectedTexts(all));
    expect(corpus.count).toBe(all.length);
    expect(corpus.matrix.length).toBe(all.length * embedder.dimensions);
    for (let row = 0; row < corpus.count; row++) {
      const vector = corpus.matrix.subarray(row * corpus.dimensions, (row + 1) * corpus.dimensions);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    }
    expect(index.stats).toMatchObject({ corpusEmbeds: all.length, cacheMisses: 1, cacheHits: 0 });

    await index.load(all);
    await index.load([...all]); // fresh array, same schemas: still warm
    expect(embedder.texts).toHaveLength(all.length);
    expect(index.stats).toMatchObject({ corpusEmbeds: all.length, cacheMisses: 1 });
  });

  it('keys on embedder id, ordered names and embedded texts', async () => {
    const all = registry();
    const index = new CorpusIndex(countingEmbedder(), memoryVectorCache());
    const key = await index.keyFor(all);
    expect(await index.keyFor([...all])).toBe(key);
    expect(await index.keyFor(all.map((tool) => ({ ...tool })))).toBe(key);
    expect(await index.keyFor([...all].reverse())).not.toBe(key);
    expect(await index.keyFor(all.slice(1))).not.toBe(key);
    const edited = all.map((tool, i) => (i === 3 ? { ...tool, description: `${tool.description} More.` } : tool));
    expect(await index.keyFor(edited)).not.toBe(key);
    const renamed = all.map((tool, i) => (i === 3 ? { ...tool, name: 'write_files' } : tool));
    expect(await index.keyFor(renamed)).not.toBe(key);
    expect(await new CorpusIndex(countingEmbedder({ id: 'other' }), memoryVectorCache()).keyFor(all)).not.toBe(key);
    expect(await new CorpusIndex(countingEmbedder({ dimensions: 128 }), memoryVectorCache()).keyFor(all)).not.toBe(key);
  });

  it('notices a schema edited in place even under the same array identity', async () => {
    const embedder = countingEmbedder();
    const index = new CorpusIndex(embedder, memoryVectorCache());
    const all = registry().map((tool) => ({ ...tool }));
    const before = await index.keyFor(all);
    (all[2] as { description: string }).description = 'Open a document and print it.';
    expect(await index.keyFor(all)).not.toBe(before);
  });

  // A frozen list of frozen schemas (what a registry hands out) is compared once, then trusted:
  // nothing in it can change. A frozen array of schemas that are not frozen is still compared.
  it('a frozen list of frozen schemas keeps its key; a frozen array of editable schemas is re-read', async () => {
    const index = new CorpusIndex(countingEmbedder(), memoryVectorCache());
    const fixed = Object.freeze(registry().map((tool) => Object.freeze({ ...tool })));
    const key = await index.keyFor(fixed);
    expect(await index.keyFor(fixed)).toBe(key);
    const editable = Object.freeze(registry().map((tool) => ({ ...tool })));
    expect(await index.keyFor(editable)).toBe(key);
    expect(await index.keyFor(editable)).toBe(key);
    (editable[2] as { description: string }).description = 'Open a document and print it.';
    expect(await index.keyFor(editable)).not.toBe(key);
  });

  it('re-embeds only the texts that changed between generations', async () => {
    const embedder = countingEmbedder();
    const index = new CorpusIndex(embedder, memoryVectorCache());
    const all = registry();
    await index.load(all);
    const edited = all.map((tool, i) => (i === 4 ? { ...tool, description: 'Look things up on the internet.' } : tool));
    const { corpus } = await index.load(edited);
    expect(index.stats.corpusEmbeds).toBe(all.length + 1);
    expect(embedder.texts.at(-1)).toBe(toolText('search_web', 'Look things up on the internet.'));
    expect(index.stats.reusedTexts).toBe(all.length - 1);
    expect(corpus.texts).toEqual(expectedTexts(edited));

    // Going back is free: the old texts are still in the per-text store.
    await index.load(all);
    expect(index.stats.corpusEmbeds).toBe(all.length + 1);
  });

  it('treats a reorder as a new generation built without embedding', async () => {
    const embedder = countingEmbedder();
    const cache = mapCache();
    const index = new CorpusIndex(embedder, cache);
    const all = registry();
    const first = (await index.load(all)).corpus;
    const reversed = [...all].reverse();
    const second = (await index.load(reversed)).corpus;
    expect(second.key).not.toBe(first.key);
    expect(index.stats).toMatchObject({ corpusEmbeds: all.length, cacheMisses: 2 });
    expect(cache.map.size).toBe(2);
    const d = first.dimensions;
    expect([...second.matrix.subarray(0, d)]).toEqual([...first.matrix.subarray((all.length - 1) * d, all.length * d)]);
  });

  it('loads a persisted generation in a new process without embedding', async () => {
    const storage = new Map<string, Uint8Array>();
    const all = registry();
    const first = new CorpusIndex(countingEmbedder(), mapCache(storage));
    const built = (await first.load(all)).corpus;

    const embedder = countingEmbedder();
    const second = new CorpusIndex(embedder, mapCache(storage));
    const loaded = (await second.load(all)).corpus;
    expect(embedder.calls).toBe(0);
    expect(second.stats).toMatchObject({ corpusEmbeds: 0, cacheHits: 1, cacheMisses: 0 });
    expect([...loaded.matrix]).toEqual([...built.matrix]);

    // Loaded vectors seed the per-text store: one edit embeds one text.
    await second.load(all.map((tool, i) => (i === 0 ? { ...tool, description: 'Weather report.' } : tool)));
    expect(second.stats.corpusEmbeds).toBe(1);
  });

  describe('corrupt or mismatched cache entries are discarded and rebuilt', () => {
    const damage: Record<string, (bytes: Uint8Array, embedderDims: number) => Uint8Array> = {
      truncated: (bytes) => bytes.slice(0, bytes.length - 7),
      'truncated to the header': (bytes) => bytes.slice(0, CORPUS_HEADER_BYTES),
      empty: () => new Uint8Array(0),
      garbage: (bytes) => bytes.map((_, i) => (i * 31) & 0xff),
      'flipped payload byte': (bytes) => {
        const copy = bytes.slice();
        copy[CORPUS_HEADER_BYTES + 101] = (copy[CORPUS_HEADER_BYTES + 101] as number) ^ 0x40;
        return copy;
      },
      'flipped header byte': (bytes) => {
        const copy = bytes.slice();
        copy[8] = (copy[8] as number) ^ 1; // dimensions field, header checksum now stale
        return copy;
      },
      'wrong dimension header': (bytes, dims) => {
        const count = (bytes.length - CORPUS_HEADER_BYTES) / 4 / dims;
        const keyDigest = bytes.slice(16, 48);
        return encodeCorpus(new Float32Array((dims / 2) * count).fill(0.1), { dimensions: dims / 2, count, keyDigest });
      },
      'wrong count': (bytes, dims) => {
        const count = (bytes.length - CORPUS_HEADER_BYTES) / 4 / dims;
        const keyDigest = bytes.slice(16, 48);
        return encodeCorpus(new Float32Array(dims * (count - 1)).fill(0.1), {
          dimensions: dims,
          count: count - 1,
          keyDigest,
        });
      },
      'entry of another key': (bytes, dims) => {
        const count = (bytes.length - CORPUS_HEADER_BYTES) / 4 / dims;
        const matrix = new Float32Array(dims * count).fill(1 / Math.sqrt(dims));
        return encodeCorpus(matrix, { dimensions: dims, count, keyDigest: new Uint8Array(32).fill(7) });
      },
    };

    for (const [label, corrupt] of Object.entries(damage)) {
      it(label, async () => {
        const storage = new Map<string, Uint8Array>();
        const all = registry();
        const clean = (await new CorpusIndex(countingEmbedder(), mapCache(storage)).load(all)).corpus;
        const original = storage.get(clean.key) as Uint8Array;
        storage.set(clean.key, corrupt(original, clean.dimensions));

        const embedder = countingEmbedder();
        const index = new CorpusIndex(embedder, mapCache(storage));
        const { corpus, warnings } = await index.load(all);
        expect(index.stats).toMatchObject({
          rebuiltCorrupt: 1,
          cacheHits: 0,
          cacheMisses: 1,
          corpusEmbeds: all.length,
        });
        expect(warnings.join('\n')).toMatch(/corpus cache entry discarded/);
        expect([...corpus.matrix]).toEqual([...clean.matrix]);
        // The rebuilt entry replaced the bad one.
        expect([...(storage.get(clean.key) as Uint8Array)]).toEqual([...original]);
        const again = new CorpusIndex(countingEmbedder(), mapCache(storage));
        await again.load(all);
        expect(again.stats).toMatchObject({ cacheHits: 1, rebuiltCorrupt: 0 });
      });
    }
  });

  it('survives a cache whose reads and writes throw', async () => {
    const embedder = countingEmbedder();
    const cache = {
      get: async () => {
        throw new Error('quota');
      },
      set: async () => {
        throw new Error('read-only');
      },
    };
    const index = new CorpusIndex(embedder, cache);
    const { corpus, warnings } = await index.load(registry());
    expect(corpus.count).toBe(registry().length);
    expect(warnings.join('\n')).toMatch(/read failed \(quota\)/);
    expect(warnings.join('\n')).toMatch(/write failed \(read-only\)/);
    // Warnings are one-off: the warm turn carries none.
    expect((await index.load(registry())).warnings).toEqual([]);
  });

  it('dedupes concurrent loads of one generation', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    const index = new CorpusIndex(embedder, memoryVectorCache());
    const all = registry();
    const loads = [index.load(all), index.load([...all]), index.load(all)];
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    const [a, b, c] = await Promise.all(loads);
    expect(a?.corpus).toBe(b?.corpus);
    expect(b?.corpus).toBe(c?.corpus);
    expect(embedder.calls).toBe(1);
    expect(index.stats).toMatchObject({ corpusEmbeds: all.length, joined: 2 });
  });

  it('shares work between indexes over the same cache object', async () => {
    const cache = memoryVectorCache();
    const embedder = countingEmbedder();
    const all = registry();
    const [a, b] = await Promise.all([
      new CorpusIndex(embedder, cache).load(all),
      new CorpusIndex(embedder, cache).load(all),
    ]);
    expect(a.corpus).toBe(b.corpus);
    expect(embedder.texts).toHaveLength(all.length);
    const third = new CorpusIndex(embedder, cache);
    await third.load(all);
    expect(third.stats).toMatchObject({ memoryHits: 1, corpusEmbeds: 0 });
  });

  it('keeps finished batches when a later batch fails, and retries only the rest', async () => {
    const embedder = countingEmbedder();
    let failNext = true;
    embedder.behaviour = (texts) => {
      if (failNext && texts.includes(toolText('list_directory', registry()[8]!.description))) {
        failNext = false;
        return 'reject';
      }
      return 'ok';
    };
    const index = new CorpusIndex(embedder, memoryVectorCache(), { batchSize: 4 });
    const all = registry();
    await expect(index.load(all)).rejects.toThrow(/unavailable/);
    expect(index.stats.corpusEmbeds).toBe(8);
    await index.load(all);
    expect(index.stats.corpusEmbeds).toBe(all.length);
  });

  it.each(['nan', 'zero', 'empty', 'wrong-count', 'wrong-dims'] as const)(
    'rejects with a CorpusError when the embedder returns %s vectors',
    async (behaviour) => {
      const embedder = countingEmbedder();
      embedder.behaviour = () => behaviour;
      const index = new CorpusIndex(embedder, memoryVectorCache());
      await expect(index.load(registry())).rejects.toBeInstanceOf(CorpusError);
    },
  );

  it('reports progress in texts', async () => {
    const events: Array<[number, number]> = [];
    const index = new CorpusIndex(countingEmbedder(), memoryVectorCache(), {
      batchSize: 4,
      onProgress: (progress) => {
        expect(progress.phase).toBe('corpus');
        events.push([progress.done, progress.total]);
      },
    });
    await index.load(registry());
    expect(events).toEqual([
      [0, 10],
      [4, 10],
      [8, 10],
      [10, 10],
    ]);
  });

  it('aborting the only waiter aborts the build; the next load starts afresh', async () => {
    const embedder = countingEmbedder();
    embedder.hold = new Promise(() => {}); // never resolves on its own
    const index = new CorpusIndex(embedder, memoryVectorCache());
    const controller = new AbortController();
    const pending = index.load(registry(), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    embedder.hold = undefined;
    const { corpus } = await index.load(registry());
    expect(corpus.count).toBe(10);
  });

  it('one waiter aborting does not fail another', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    const index = new CorpusIndex(embedder, memoryVectorCache());
    const controller = new AbortController();
    const aborted = index.load(registry(), { signal: controller.signal });
    const patient = index.load(registry());
    await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    release();
    expect((await patient).corpus.count).toBe(10);
    expect(embedder.calls).toBe(1);
  });
});
