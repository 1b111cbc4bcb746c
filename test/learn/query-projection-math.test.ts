/**
 * The projection's linear algebra against a plain reference: both solves (the N×N dual below
 * d examples, the d×d primal with its tiled Gram matrix above) give the ridge map
 * Δ = (XᵀX + λI)⁻¹XᵀZ, on dimensions that are and are not a multiple of the tile size.
 */
import { describe, expect, it } from 'vitest';
import { checksumBytes } from '../../src/hash.js';
import { type Pacer, timeSlices } from '../../src/learn/pacer.js';
import {
  fitProjection,
  heldOutResiduals,
  projectQuery,
  type QueryProjection,
} from '../../src/learn/query-projection.js';
import { cholesky, rowGram, rowProducts, solveRows } from '../../src/learn/ridge-algebra.js';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

const unit = (values: number[]): Float32Array => {
  const norm = Math.sqrt(values.reduce((s, v) => s + v * v, 0));
  return Float32Array.from(values, (v) => v / norm);
};

/** Solve A·X = B (A n×n, B n×m) by Gauss–Jordan, in plain arrays. */
function solve(a: number[][], b: number[][]): number[][] {
  const n = a.length;
  const m = (b[0] as number[]).length;
  const aug = a.map((row, i) => [...row, ...(b[i] as number[])]);
  for (let col = 0; col < n; col++) {
    const pivot = aug[col] as number[];
    const p = pivot[col] as number;
    for (let j = 0; j < n + m; j++) pivot[j] = (pivot[j] as number) / p;
    for (let i = 0; i < n; i++) {
      if (i === col) continue;
      const row = aug[i] as number[];
      const f = row[col] as number;
      for (let j = 0; j < n + m; j++) row[j] = (row[j] as number) - f * (pivot[j] as number);
    }
  }
  return aug.map((row) => row.slice(n));
}

function reference(vectors: Float32Array[], targets: Float64Array[], lambda: number, d: number): number[][] {
  const xtx = Array.from({ length: d }, (_, r) =>
    Array.from(
      { length: d },
      (_, c) => vectors.reduce((s, x) => s + (x[r] as number) * (x[c] as number), 0) + (r === c ? lambda : 0),
    ),
  );
  const xtz = Array.from({ length: d }, (_, r) =>
    Array.from({ length: d }, (_, c) =>
      vectors.reduce(
        (s, x, i) => s + (x[r] as number) * (((targets[i] as Float64Array)[c] as number) - (x[c] as number)),
        0,
      ),
    ),
  );
  return solve(xtx, xtz);
}

/**
 * The fit's target for one example, in plain arrays: the normalised sum of its tools' rows, moved
 * away (by `contrast`) from the normalised sum of up to `negatives` other tools that its vector
 * scores at least as high as the lowest of its own, then normalised again.
 */
function referenceTarget(
  x: Float32Array,
  used: readonly number[],
  tools: readonly Float32Array[],
  contrast: number,
  negatives: number,
): Float64Array {
  const normalise = (v: number[]) => {
    const norm = Math.sqrt(v.reduce((s, a) => s + a * a, 0));
    return v.map((a) => a / norm);
  };
  const sumOf = (rows: readonly number[]) =>
    Array.from(x, (_, j) => rows.reduce((s, t) => s + ((tools[t] as Float32Array)[j] as number), 0));
  const score = (t: number) => Array.from(x).reduce((s, a, j) => s + a * ((tools[t] as Float32Array)[j] as number), 0);
  const own = [...new Set(used)];
  const floor = Math.min(...own.map(score));
  const hard = tools
    .map((_, t) => t)
    .filter((t) => !own.includes(t) && score(t) >= floor)
    .sort((a, b) => score(b) - score(a))
    .slice(0, negatives);
  const toward = normalise(sumOf(own));
  if (contrast === 0 || hard.length === 0) return Float64Array.from(toward);
  const away = normalise(sumOf(hard));
  return Float64Array.from(normalise(toward.map((a, j) => a - contrast * (away[j] as number))));
}

describe('query projection algebra', () => {
  for (const [d, n, contrast, budget] of [
    [6, 4, 0],
    [6, 40, 0],
    [8, 40, 0],
    [9, 3, 0],
    [6, 4, 0.5],
    [6, 40, 0.5],
    [8, 40, 0.5],
    [9, 3, 0.5],
    // A spent budget: only the first 64 examples of the fit's order get negatives (the floor); a
    // budget worth 70 examples searches exactly 70, not the whole block of 32 the 70th falls in.
    [6, 100, 0.5, 0],
    [6, 100, 0.5, 6 * 5 * 70],
  ] as const) {
    it(`d = ${d}, ${n} examples (${n < d ? 'dual' : 'primal'}), contrast ${contrast}${budget === undefined ? '' : `, budget ${budget}`}: the map equals the reference ridge solution`, async () => {
      const next = random(d * 1000 + n);
      const toolCount = 5;
      const tools = Array.from({ length: toolCount }, () => unit(Array.from({ length: d }, next)));
      const matrix = new Float32Array(toolCount * d);
      tools.forEach((row, i) => {
        matrix.set(row, i * d);
      });
      const examples = Array.from({ length: n }, (_, i) => ({
        vector: unit(Array.from({ length: d }, next)),
        tools: [i % toolCount, (i * 3 + 1) % toolCount],
      }));
      const lambda = 0.7;
      const fitted = await fitProjection(examples, matrix, toolCount, d, {
        lambda,
        forceBlend: 1,
        minExamples: 1,
        contrast,
        negatives: 2,
        ...(budget === undefined ? {} : { contrastBudget: budget }),
      });
      expect('reason' in fitted).toBe(false);
      // The fit orders examples by a hash of each (keyless: its vector's bytes); its first 64 are searched.
      const order = examples
        .map((e, i) => ({
          i,
          key: checksumBytes(new Uint8Array(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength)),
        }))
        .sort((a, b) => a.key - b.key);
      const searchedCount = budget === undefined ? n : Math.max(64, Math.floor(budget / (toolCount * d)));
      const searched = new Set(order.slice(0, searchedCount).map(({ i }) => i));
      const targets = examples.map(({ vector, tools: used }, i) =>
        referenceTarget(vector, used, tools, searched.has(i) ? contrast : 0, 2),
      );
      if (contrast > 0) {
        // The contrast is exercised: some targets differ from the plain ones.
        const moved = examples.filter(({ vector, tools: used }, i) =>
          referenceTarget(vector, used, tools, 0, 2).some((v, j) => Math.abs(v - (targets[i]?.[j] as number)) > 1e-6),
        );
        expect(moved.length).toBeGreaterThan(0);
      }
      const delta = reference(
        examples.map((e) => e.vector),
        targets,
        lambda,
        d,
      );
      const query = unit(Array.from({ length: d }, next));
      const expected = Array.from(
        { length: d },
        (_, c) =>
          (query[c] as number) +
          Array.from(query).reduce((s, q, r) => s + q * ((delta[r] as number[])[c] as number), 0),
      );
      const norm = Math.sqrt(expected.reduce((s, v) => s + v * v, 0));
      const moved = projectQuery(fitted as QueryProjection, query);
      expected.forEach((value, c) => {
        expect(moved[c]).toBeCloseTo(value / norm, 5);
      });
    });
  }

  it("the check's figure without the map is the same whichever prompts the hard-negative search ranked (it reuses their scores)", async () => {
    const d = 6;
    const n = 200;
    const toolCount = 24;
    const next = random(4242);
    const matrix = new Float32Array(toolCount * d);
    for (let t = 0; t < toolCount; t++) matrix.set(unit(Array.from({ length: d }, next)), t * d);
    const examples = Array.from({ length: n }, (_, i) => ({
      vector: unit(Array.from({ length: d }, next)),
      tools: [i % toolCount],
    }));
    const noMapFigure = async (options: { contrast: number; contrastBudget?: number }) => {
      const fitted = await fitProjection(examples, matrix, toolCount, d, {
        lambda: 0.7,
        forceBlend: 1,
        minExamples: 1,
        negatives: 2,
        ...options,
      });
      return (fitted as QueryProjection).check.before;
    };
    // Nothing searched (every prompt ranked by the check), the first 64 or 70 searched (the
    // check's sample mixes both kinds in one block), every prompt searched.
    const plain = await noMapFigure({ contrast: 0 });
    expect(plain).toBeGreaterThan(0);
    expect(plain).toBeLessThan(1);
    for (const contrastBudget of [0, toolCount * d * 70, Number.POSITIVE_INFINITY])
      expect(await noMapFigure({ contrast: 0.5, contrastBudget })).toBe(plain);
  });

  for (const [d, n, contrast] of [
    [6, 4, 0],
    [5, 11, 0],
    [6, 4, 0.5],
    [5, 11, 0.5],
  ] as const) {
    it(`d = ${d}, ${n} examples (${n < d ? 'dual' : 'primal'}), contrast ${contrast}: held-out predictions equal a refit without the held-out rows`, async () => {
      const next = random(d * 7 + n);
      const toolCount = 4;
      const tools = Array.from({ length: toolCount }, () => unit(Array.from({ length: d }, next)));
      const matrix = new Float32Array(toolCount * d);
      tools.forEach((row, i) => {
        matrix.set(row, i * d);
      });
      const examples = Array.from({ length: n }, (_, i) => ({
        vector: unit(Array.from({ length: d }, next)),
        tools: [i % toolCount],
      }));
      // Each target depends on its own example only, so a refit without some rows keeps the others' targets.
      const targets = examples.map(({ vector, tools: used }) => referenceTarget(vector, used, tools, contrast, 2));
      const lambda = 0.7;
      const groups = [[0], [2, 3], [n - 1]];
      const predicted = await heldOutResiduals(examples, matrix, toolCount, d, lambda, groups, {
        contrast,
        negatives: 2,
      });
      const heldRows = groups.flatMap((group) => group.map((held) => ({ held, left: group })));
      heldRows.forEach(({ held, left }, r) => {
        const keep = examples.map((_, i) => i).filter((i) => !left.includes(i));
        const delta = reference(
          keep.map((i) => (examples[i] as { vector: Float32Array }).vector),
          keep.map((i) => targets[i] as Float64Array),
          lambda,
          d,
        );
        const x = (examples[held] as { vector: Float32Array }).vector;
        for (let c = 0; c < d; c++) {
          const expected = Array.from(x).reduce(
            (sum, value, k) => sum + value * ((delta[k] as number[])[c] as number),
            0,
          );
          expect(predicted[r * d + c]).toBeCloseTo(expected, 9);
        }
      });
    });
  }

  it('tiled products, Gram and the blocked solve match plain loops off the tile size', async () => {
    const next = random(42);
    const [rowsA, rowsB, length] = [7, 5, 9];
    const a = Float64Array.from({ length: rowsA * length }, next);
    const b = Float64Array.from({ length: rowsB * length }, next);
    const plain = (p: Float64Array, i: number, q: Float64Array, j: number) => {
      let sum = 0;
      for (let k = 0; k < length; k++) sum += (p[i * length + k] as number) * (q[j * length + k] as number);
      return sum;
    };
    const products = await rowProducts(a, rowsA, b, rowsB, length);
    for (let i = 0; i < rowsA; i++)
      for (let j = 0; j < rowsB; j++) expect(products[i * rowsB + j]).toBe(plain(a, i, b, j));
    const gram = await rowGram(a, rowsA, length);
    for (let i = 0; i < rowsA; i++)
      for (let j = 0; j < rowsA; j++) expect(gram[i * rowsA + j]).toBe(plain(a, Math.max(i, j), a, Math.min(i, j)));

    // (AAᵀ + I) X = B for six right-hand sides of 7 unknowns.
    const system = await rowGram(a, rowsA, length);
    for (let i = 0; i < rowsA; i++) system[i * rowsA + i] = (system[i * rowsA + i] as number) + 1;
    const original = system.slice();
    await cholesky(system, rowsA);
    const m = 6;
    const rhs = Float64Array.from({ length: m * rowsA }, next);
    const solved = rhs.slice();
    await solveRows(system, rowsA, solved, m);
    for (let r = 0; r < m; r++) {
      for (let i = 0; i < rowsA; i++) {
        let back = 0;
        for (let k = 0; k < rowsA; k++) back += (original[i * rowsA + k] as number) * (solved[r * rowsA + k] as number);
        expect(back).toBeCloseTo(rhs[r * rowsA + i] as number, 12);
      }
    }
  });
});

describe('query projection sampling', () => {
  it('samples by the prompt, so arrival order and float rounding of the vectors change nothing', async () => {
    const next = random(7);
    const d = 8;
    const toolCount = 40;
    const tools = new Float32Array(toolCount * d);
    for (let t = 0; t < toolCount; t++) tools.set(unit(Array.from({ length: d }, () => next())), t * d);
    const examples = Array.from({ length: 90 }, (_, i) => ({
      vector: unit(Array.from({ length: d }, () => next())),
      tools: [i % toolCount],
      key: `prompt ${i}`,
    }));
    // The same prompts in reverse order, each vector off by float rounding (as a batch embed can be).
    const again = [...examples].reverse().map((example) => {
      const vector = Float32Array.from(example.vector);
      vector[0] = (vector[0] as number) * (1 + 2 ** -23);
      return { ...example, vector };
    });
    const options = { maxExamples: 50, checkExamples: 20, minExamples: 8, forceBlend: 0.5 };
    const first = await fitProjection(examples, tools, toolCount, d, options);
    const second = await fitProjection(again, tools, toolCount, d, options);
    expect(second.check).toEqual(first.check);
    const a = (first as QueryProjection).delta;
    const b = (second as QueryProjection).delta;
    expect(a).toBeDefined();
    expect(b?.length).toBe(a?.length);
    for (let i = 0; i < (a?.length ?? 0); i++) expect(b?.[i]).toBeCloseTo(a?.[i] as number, 4);
  });
});

describe('query projection in time slices', () => {
  // A registry and examples big enough for every step to have several strips to pause between.
  const fixture = (d: number, n: number) => {
    const next = random(d * 31 + n);
    const toolCount = 48;
    const matrix = new Float32Array(toolCount * d);
    for (let t = 0; t < toolCount; t++) matrix.set(unit(Array.from({ length: d }, next)), t * d);
    const examples = Array.from({ length: n }, (_, i) => ({
      vector: unit(Array.from({ length: d }, next)),
      tools: [i % toolCount, (i * 7) % toolCount],
      key: `prompt ${i}`,
    }));
    return { matrix, toolCount, examples, options: { minExamples: 4, forceBlend: 0.75 } };
  };

  for (const [d, n] of [
    [24, 12],
    [12, 90],
  ] as const) {
    it(`${n < d ? 'dual' : 'primal'} (d = ${d}, ${n} examples): pausing at every step fits exactly what one unbroken run fits`, async () => {
      const { matrix, toolCount, examples, options } = fixture(d, n);
      let pauses = 0;
      const always: Pacer = { due: () => true, pause: async () => void pauses++ };
      const paced = await fitProjection(examples, matrix, toolCount, d, options, always);
      const whole = await fitProjection(examples, matrix, toolCount, d, options);
      expect(paced.check).toEqual(whole.check);
      expect(Array.from((paced as QueryProjection).delta)).toEqual(Array.from((whole as QueryProjection).delta));
      // Search, Gram, factor, held-out solves and the check's rankings each pause per strip.
      expect(pauses).toBeGreaterThan(d);
    });
  }

  it('gives the thread back: a timer set before a sliced fit runs before the fit resolves, and not before an unsliced one', async () => {
    const { matrix, toolCount, examples, options } = fixture(12, 90);
    const firedDuring = async (pace?: Pacer) => {
      let fired = false;
      setTimeout(() => {
        fired = true;
      }, 0);
      await fitProjection(examples, matrix, toolCount, 12, options, pace);
      return fired;
    };
    expect(await firedDuring()).toBe(false);
    expect(await firedDuring(timeSlices(0))).toBe(true);
  });
});
