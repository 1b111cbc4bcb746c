/**
 * The projection's linear algebra against a plain reference: both solves (the N×N dual below
 * d examples, the d×d primal with its tiled Gram matrix above) give the ridge map
 * Δ = (XᵀX + λI)⁻¹XᵀZ, on dimensions that are and are not a multiple of the tile size.
 */
import { describe, expect, it } from 'vitest';
import { fitProjection, projectQuery, type QueryProjection } from '../../src/select/query-projection.js';

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
    Array.from({ length: d }, (_, c) => vectors.reduce((s, x) => s + (x[r] as number) * (x[c] as number), 0) + (r === c ? lambda : 0)),
  );
  const xtz = Array.from({ length: d }, (_, r) =>
    Array.from({ length: d }, (_, c) =>
      vectors.reduce((s, x, i) => s + (x[r] as number) * (((targets[i] as Float64Array)[c] as number) - (x[c] as number)), 0),
    ),
  );
  return solve(xtx, xtz);
}

describe('query projection algebra', () => {
  for (const [d, n] of [
    [6, 4],
    [6, 40],
    [8, 40],
    [9, 3],
  ] as const) {
    it(`d = ${d}, ${n} examples (${n < d ? 'dual' : 'primal'}): the map equals the reference ridge solution`, () => {
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
      const fitted = fitProjection(examples, matrix, toolCount, d, { lambda, forceBlend: 1, minExamples: 1 });
      expect('reason' in fitted).toBe(false);
      const targets = examples.map(({ tools: used }) => {
        const sum = new Float64Array(d);
        for (const t of used) for (let j = 0; j < d; j++) sum[j] = (sum[j] as number) + (tools[t] as Float32Array)[j]!;
        const norm = Math.sqrt(sum.reduce((s, v) => s + v * v, 0));
        return sum.map((v) => v / norm);
      });
      const delta = reference(
        examples.map((e) => e.vector),
        targets,
        lambda,
        d,
      );
      const query = unit(Array.from({ length: d }, next));
      const expected = Array.from(
        { length: d },
        (_, c) => (query[c] as number) + Array.from(query).reduce((s, q, r) => s + q * ((delta[r] as number[])[c] as number), 0),
      );
      const norm = Math.sqrt(expected.reduce((s, v) => s + v * v, 0));
      const moved = projectQuery(fitted as QueryProjection, query);
      expected.forEach((value, c) => {
        expect(moved[c]).toBeCloseTo(value / norm, 5);
      });
    });
  }
});
