/**
 * The vectors file format: round trips at each precision, and every kind of damage refused
 * with a reason (never a throw, never a half-trusted file).
 */
import { describe, expect, it } from 'vitest';
import { normalise } from '../../src/embed/embedder.js';
import { buildVectorsFile } from '../../src/embed/vectors-build.js';
import {
  encodeVectorsFile,
  readVectorsFile,
  VECTORS_FILE_VERSION,
  vectorsTextKey,
} from '../../src/embed/vectors-file.js';
import { toolText } from '../../src/text/words.js';
import { bagOfWords, countingEmbedder, registry } from './counting-embedder.js';

const DIMS = 64;
const header = { embedderId: 'test/bow-64', dimensions: DIMS };
const texts = registry().map((tool) => toolText(tool.name, tool.description));
const entries = texts.map((text) => ({ text, vector: bagOfWords(text, DIMS) }));
const cosine = (a: Float32Array, b: Float32Array) => {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i] as number) * (b[i] as number);
    aa += (a[i] as number) ** 2;
    bb += (b[i] as number) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
};

describe('vectors file', () => {
  for (const [precision, floor] of [
    ['f32', 1 - 1e-7],
    ['f16', 0.99999],
    ['i8', 0.999],
  ] as const) {
    it(`round-trips at ${precision} (cosine >= ${floor}), unit rows, any text order`, () => {
      const bytes = encodeVectorsFile({ ...header, precision }, entries);
      const read = readVectorsFile(bytes, header);
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      expect(read.file).toMatchObject({
        embedderId: 'test/bow-64',
        dimensions: DIMS,
        count: texts.length,
        precision,
        byteLength: bytes.byteLength,
      });
      for (const { text, vector } of [...entries].reverse()) {
        const stored = read.file.vectorFor(text) as Float32Array;
        expect(stored).toBeInstanceOf(Float32Array);
        expect(cosine(stored, vector)).toBeGreaterThanOrEqual(floor);
        expect(Math.abs(cosine(stored, stored) - 1)).toBeLessThan(1e-6);
        expect(stored.reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 5);
      }
      expect(read.file.vectorFor('a text that was never stored')).toBeUndefined();
    });

    it(`decodes many texts in one pass at ${precision}, aligned with the request, gaps for unknown texts`, () => {
      const read = readVectorsFile(encodeVectorsFile({ ...header, precision }, entries), header);
      if (!read.ok) throw new Error(read.reason);
      const asked = ['never stored', ...[...texts].reverse(), 'also never stored', texts[0] as string];
      const many = read.file.vectorsFor(asked);
      expect(many).toHaveLength(asked.length);
      expect(many[0]).toBeUndefined();
      expect(many[texts.length + 1]).toBeUndefined();
      asked.forEach((text, i) => {
        if (many[i] === undefined) return;
        expect(Array.from(many[i] as Float32Array)).toEqual(Array.from(read.file.vectorFor(text) as Float32Array));
      });
      expect(many.filter((v) => v !== undefined)).toHaveLength(texts.length + 1);
    });
  }

  it('is compact: f16 rows cost 2 bytes a value, i8 one (plus a scale), keys 8 bytes', () => {
    const sizes = Object.fromEntries(
      (['f32', 'f16', 'i8'] as const).map((p) => [
        p,
        encodeVectorsFile({ ...header, precision: p }, entries).byteLength,
      ]),
    );
    const n = texts.length;
    const fixed = 20 + Math.ceil('test/bow-64'.length / 4) * 4 + 4;
    expect(sizes.f32).toBe(fixed + n * (8 + DIMS * 4));
    expect(sizes.f16).toBe(fixed + n * (8 + DIMS * 2));
    expect(sizes.i8).toBe(fixed + n * (8 + 4 + DIMS));
  });

  it('stores a repeated text once, and keys by text hash', () => {
    const read = readVectorsFile(encodeVectorsFile(header, [...entries, ...entries]), header);
    expect(read.ok && read.file.count).toBe(texts.length);
    expect(vectorsTextKey('a')).toMatch(/^[0-9a-f]{16}$/);
    expect(vectorsTextKey('a')).not.toBe(vectorsTextKey('b'));
  });

  it('refuses to encode vectors of the wrong size or that cannot rank', () => {
    expect(() => encodeVectorsFile(header, [{ text: 'x', vector: new Float32Array(DIMS + 1) }])).toThrow(
      /65 values, expected 64/,
    );
    expect(() => encodeVectorsFile(header, [{ text: 'x', vector: new Float32Array(DIMS) }])).toThrow(/cannot rank/);
    expect(() => encodeVectorsFile({ ...header, precision: 'f8' as never }, entries)).toThrow(/precision/);
  });

  describe('bad input is refused with a reason', () => {
    const bytes = encodeVectorsFile(header, entries);
    const refused = (input: Uint8Array, expected = header) => {
      const read = readVectorsFile(input, expected);
      expect(read.ok).toBe(false);
      return read.ok ? '' : read.reason;
    };

    it('truncated at any length', () => {
      for (let length = 0; length < bytes.byteLength; length += 7) {
        expect(refused(bytes.slice(0, length))).toMatch(/truncated|shorter than a header/);
      }
      expect(refused(bytes.slice(0, bytes.byteLength - 1))).toMatch(/truncated/);
    });

    it('a flipped bit anywhere', () => {
      for (let at = 0; at < bytes.byteLength; at++) {
        const copy = bytes.slice();
        copy[at] = (copy[at] as number) ^ (1 << (at % 8));
        expect(refused(copy), `byte ${at}`).toMatch(/checksum|truncated|magic|version|corrupt|unexpected bytes/);
      }
    });

    it('another embedder, other dimensions, another version, trailing bytes, not a file', () => {
      expect(refused(bytes, { embedderId: 'use-lite/int8/mean/tok2', dimensions: DIMS })).toMatch(
        /built by embedder "test\/bow-64", this selector uses "use-lite/,
      );
      expect(refused(bytes, { embedderId: 'test/bow-64', dimensions: 512 })).toMatch(
        /64-dimension vectors, this embedder makes 512/,
      );
      const future = bytes.slice();
      new DataView(future.buffer).setUint16(4, VECTORS_FILE_VERSION + 1, true);
      expect(refused(future)).toMatch(new RegExp(`format version ${VECTORS_FILE_VERSION + 1}`));
      const longer = new Uint8Array(bytes.byteLength + 4);
      longer.set(bytes);
      expect(refused(longer)).toMatch(/unexpected bytes/);
      expect(refused(new TextEncoder().encode('{"vectors": []} and some more text'))).toMatch(/bad magic/);
      expect(refused('bytes' as never)).toMatch(/not bytes/);
    });

    it('reads from an unaligned view', () => {
      const padded = new Uint8Array(bytes.byteLength + 3);
      padded.set(bytes, 3);
      const read = readVectorsFile(padded.subarray(3), header);
      expect(read.ok && read.file.count).toBe(texts.length);
    });
  });

  it('buildVectorsFile embeds each distinct tool text once, with progress', async () => {
    const embedder = countingEmbedder({ dimensions: DIMS, id: 'test/bow-64' });
    const progress: number[] = [];
    const all = registry();
    const tools = [...all, ...all.slice(0, 1)];
    const bytes = await buildVectorsFile(embedder, tools, { batchSize: 4, onProgress: (p) => progress.push(p.done) });
    expect(embedder.texts).toEqual(texts);
    expect(progress).toEqual([0, 4, 8, 10]);
    const read = readVectorsFile(bytes, header);
    expect(read.ok).toBe(true);
    const text = texts[3] as string;
    if (read.ok)
      expect(
        cosine(read.file.vectorFor(text) as Float32Array, normalise(bagOfWords(text, DIMS)) as Float32Array),
      ).toBeGreaterThan(0.99999);
  });
});
