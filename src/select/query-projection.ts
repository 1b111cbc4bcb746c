/**
 * A learned linear map of the query vector, fitted on the registry's own examples: the map
 * that moves each learned prompt toward the tools it used, shrunk toward "no change".
 *
 * Closed-form ridge regression in Float64, no training loop:
 * `W = argmin Σᵢ ‖xᵢW − yᵢ‖² + λ‖W − I‖²`, with xᵢ a learned prompt's unit vector and yᵢ the
 * normalised mean of its tools' unit vectors. Written as `W = I + Δ`, Δ is the ridge fit of the
 * residuals `yᵢ − xᵢ`; it is solved in the N×N dual when there are fewer examples than
 * dimensions and in the d×d primal otherwise (a Cholesky factorisation either way).
 *
 * The guard: a map fitted on a handful of prompts can pull unrelated queries the wrong way.
 * Ridge regression has an exact leave-one-out prediction, so every example can be scored as if
 * it had not been learned; the map is applied at the blend `x + α·xΔ` that ranked those
 * held-out examples best (α = 0, i.e. off, unless a larger α is strictly better). The check
 * runs on the examples themselves, so it works on any registry.
 *
 * @module
 */
import { checksumBytes } from '../hash.js';
import { backward, cholesky, columnGram, forward, rowGram, solveInPlace } from './ridge-algebra.js';

/** Settings of the projection (defaults chosen on the dev splits, docs/tuning-learn.md). */
export interface ProjectionOptions {
  /** Ridge strength λ pulling the map toward identity. */
  lambda?: number;
  /** Blends the leave-one-out check may choose from (0 is always a candidate). */
  blends?: readonly number[];
  /**
   * Tools counted as "offered" when scoring held-out examples; on a small registry at most an
   * eighth of its tools (so the check still tells a good map from a bad one).
   */
  checkK?: number;
  /** Examples scored by the check at most (an evenly spaced sample beyond). */
  checkExamples?: number;
  /**
   * Multiply-adds the held-out scoring may spend per check (each scored example ranks the whole
   * registry twice), so a big registry scores fewer examples; never fewer than 48.
   */
  checkBudget?: number;
  /** Fewest examples before a map is fitted at all. */
  minExamples?: number;
  /**
   * Examples the map is fitted on at most: a fixed pseudo-random sample beyond (by a hash of
   * each prompt's vector), so learning thousands of examples stays under a second. The vote
   * still uses every example.
   */
  maxExamples?: number;
  /**
   * Apply the map at `forceBlend` whatever the held-out check says (experiments only; the
   * check still runs and is reported).
   */
  forceBlend?: number;
}

/** The fitted defaults (dev splits only). */
export const PROJECTION_DEFAULTS: Omit<Required<ProjectionOptions>, 'forceBlend'> = {
  lambda: 1,
  blends: [0.25, 0.5, 0.75, 1],
  checkK: 8,
  checkExamples: 120,
  checkBudget: 80_000_000,
  minExamples: 8,
  maxExamples: 2048,
};

/** One learned example as the fit sees it: the prompt's unit vector and its tools' rows. */
export interface ProjectionExample {
  readonly vector: Float32Array;
  readonly tools: readonly number[];
}

/** A fitted map and what the check decided. */
export interface QueryProjection {
  /**
   * Δ, already scaled by `blend`: a query becomes `x + xΔ`. From the dual (fewer examples than
   * dimensions), `Δ = Xᵀ·C` kept as `rank` rows of `basis` (X) and `delta` (C). From the
   * primal, `Δ = G⁻¹·B` kept as the Cholesky factor of G in `factor` and B (d×d) in `delta`,
   * so fitting never solves for all of Δ (a query pays two triangular solves instead).
   */
  readonly delta: Float64Array;
  readonly basis?: Float64Array;
  readonly rank?: number;
  readonly factor?: Float64Array;
  readonly dimensions: number;
  /** The blend the leave-one-out check chose (0 < blend ≤ 1). */
  readonly blend: number;
  /** Held-out score (full recall at `checkK`, examples scored) without and with the map. */
  readonly check: { readonly before: number; readonly after: number; readonly examples: number };
}

/** Why no map applies: too few examples, or the check found it does not help. */
export interface ProjectionDeclined {
  readonly delta?: undefined;
  readonly reason: string;
  readonly check?: { readonly before: number; readonly after: number; readonly examples: number };
}

/**
 * Fit the map on learned examples against the registry's tool vectors (`toolMatrix`, `toolCount`
 * unit rows of `dimensions`). Pure and synchronous.
 *
 * @example
 * const fitted = fitProjection([{ vector: q, tools: [3] }, …], corpus.matrix, corpus.count, 512)
 * if (fitted.delta) projectQuery(fitted, q)
 */
export function fitProjection(
  examples: readonly ProjectionExample[],
  toolMatrix: Float32Array,
  toolCount: number,
  dimensions: number,
  options: ProjectionOptions = {},
): QueryProjection | ProjectionDeclined {
  const settings = { ...PROJECTION_DEFAULTS, ...options };
  // Ordered by a hash of each prompt's vector: the fit, the sample beyond `maxExamples` and the
  // held-out check's sample are then the same whatever order the examples arrived in.
  const usable = examples
    .filter((example) => example.vector.length === dimensions && example.tools.some((t) => t >= 0 && t < toolCount))
    .map((example) => ({ example, key: checksumBytes(new Uint8Array(example.vector.buffer, example.vector.byteOffset, example.vector.byteLength)) }))
    .sort((a, b) => a.key - b.key)
    .slice(0, Math.max(1, settings.maxExamples))
    .map(({ example }) => example);
  if (usable.length < settings.minExamples) return { reason: `${usable.length} examples, fewer than ${settings.minExamples}` };
  const d = dimensions;
  const n = usable.length;
  const x = new Float64Array(n * d);
  const z = new Float64Array(n * d); // residuals yᵢ − xᵢ
  usable.forEach((example, i) => {
    const target = meanRow(toolMatrix, example.tools, toolCount, d);
    for (let j = 0; j < d; j++) {
      x[i * d + j] = example.vector[j] as number;
      z[i * d + j] = (target[j] as number) - (example.vector[j] as number);
    }
  });
  const lambda = settings.lambda;
  const fit = n < d ? fitDual(x, z, n, d, lambda) : fitPrimal(x, z, n, d, lambda, usable, toolMatrix, toolCount);

  // Two held-out checks, both exact for ridge regression (no refit): leave one example out,
  // and leave out every example of a rarely used tool (a tool the map never saw: the case
  // that a vote cannot help and a bad map would hurt). Ranking is invariant to the query's
  // norm, so at blend α the tools score s₀ + α·s₁ with s₀ = x·v and s₁ = ẑ₋ₛ·v.
  const blends = [0, ...settings.blends.filter((b) => b > 0 && b <= 1)];
  const s0 = new Float64Array(toolCount);
  const s1 = new Float64Array(toolCount);
  const checkK = Math.max(1, Math.min(settings.checkK, Math.floor(toolCount / 8)));
  // Per held-out row, whether its tools made the top checkK at each blend.
  const score = (sets: readonly (readonly number[])[]): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (const held of sets) {
      const predicted = fit.heldOut(held);
      held.forEach((row, r) => {
        scorePair(toolMatrix, toolCount, d, x.subarray(row * d, row * d + d), predicted[r] as Float64Array, s0, s1);
        const used = usable[row]?.tools.filter((t) => t >= 0 && t < toolCount) ?? [];
        out.push(Uint8Array.from(blends, (alpha) => fullHit(s0, s1, alpha, used, checkK)));
      });
    }
    return out;
  };
  // Each scored row ranks the whole registry twice; a big registry gets fewer rows (at least 48).
  const perCheck = Math.min(settings.checkExamples, Math.max(48, Math.floor(settings.checkBudget / (toolCount * d))));
  const single = score(sampleRows(n, perCheck).map((row) => [row]));
  const groups = score(rareToolGroups(usable, toolCount, perCheck));
  // How much each check counts: the chance that the next prompt needs a tool no example used.
  // Estimated as the larger of the Good–Turing share (examples whose tool was used only once)
  // and the share of the registry's tools no example used (traffic may move to them).
  const unseen = groups.length > 0 ? unseenShare(usable, toolCount) : 0;
  const weighted = [
    ...single.map((hits) => ({ hits, weight: (groups.length > 0 ? 1 - unseen : 1) / single.length })),
    ...groups.map((hits) => ({ hits, weight: unseen / groups.length })),
  ];
  const objective = (b: number) => weighted.reduce((sum, { hits, weight }) => sum + weight * (hits[b] as number), 0);
  let best = 0;
  let bestGain = 0;
  for (let b = 1; b < blends.length; b++) {
    // A paired test: the weighted gain must exceed twice its noise (rows that changed either way).
    let gain = 0;
    let noise = 0;
    for (const { hits, weight } of weighted) {
      const change = (hits[b] as number) - (hits[0] as number);
      gain += weight * change;
      noise += weight * weight * Math.abs(change);
    }
    if (gain > 2 * Math.sqrt(noise) && gain > bestGain) {
      best = b;
      bestGain = gain;
    }
  }
  if (settings.forceBlend !== undefined) best = Math.max(0, blends.indexOf(settings.forceBlend));
  const check = { before: objective(0), after: objective(best), examples: single.length + groups.length };
  if (best === 0) return { reason: 'the held-out check found no blend that helps', check };
  const blend = blends[best] as number;
  const { delta } = fit;
  for (let i = 0; i < delta.length; i++) delta[i] = (delta[i] as number) * blend;
  if (fit.factor) return { delta, factor: fit.factor, dimensions: d, blend, check };
  return { delta, basis: x, rank: n, dimensions: d, blend, check };
}

/**
 * A unit query vector through the map: `normalise(x + xΔ)`.
 *
 * @example
 * const moved = projectQuery(projection, queryVector)
 */
export function projectQuery(projection: QueryProjection, query: Float32Array): Float32Array {
  const d = projection.dimensions;
  const out = new Float64Array(d);
  const { delta, basis, rank, factor } = projection;
  if (factor) {
    // xΔ = (G⁻¹x)ᵀB: G is symmetric, so solve with its factor, then one pass over B.
    const solved = Float64Array.from(query);
    forward(factor, d, solved);
    backward(factor, d, solved);
    for (let i = 0; i < d; i++) {
      const weight = solved[i] as number;
      const offset = i * d;
      for (let j = 0; j < d; j++) out[j] = (out[j] as number) + weight * (delta[offset + j] as number);
    }
  } else if (basis && rank !== undefined) {
    // Low rank: xΔ = (x·Bᵀ)·C.
    for (let r = 0; r < rank; r++) {
      let weight = 0;
      const offset = r * d;
      for (let j = 0; j < d; j++) weight += (basis[offset + j] as number) * (query[j] as number);
      for (let j = 0; j < d; j++) out[j] = (out[j] as number) + weight * (delta[offset + j] as number);
    }
  } else {
    for (let i = 0; i < d; i++) {
      const xi = query[i] as number;
      if (xi === 0) continue;
      const offset = i * d;
      for (let j = 0; j < d; j++) out[j] = (out[j] as number) + xi * (delta[offset + j] as number);
    }
  }
  let norm = 0;
  for (let j = 0; j < d; j++) {
    out[j] = (out[j] as number) + (query[j] as number);
    norm += (out[j] as number) * (out[j] as number);
  }
  const result = new Float32Array(d);
  if (!(norm > 0) || !Number.isFinite(norm)) return query;
  const scale = 1 / Math.sqrt(norm);
  for (let j = 0; j < d; j++) result[j] = (out[j] as number) * scale;
  return result;
}

interface Fit {
  /** (dual) the n×d coefficients C with Δ = XᵀC, or (primal) B with Δ = G⁻¹B. */
  readonly delta: Float64Array;
  readonly factor?: Float64Array;
  /**
   * The predicted residual ẑ of each of `rows` had all of `rows` been left out of the fit:
   * eₛ₋ = (I − Hₛₛ)⁻¹ eₛ with e = z − ẑ and H the hat matrix (exact for ridge regression).
   */
  heldOut(rows: readonly number[]): Float64Array[];
}

/**
 * The shared held-out algebra: given each row's fitted residual ẑⱼ and the hat-matrix entries
 * Hₐᵦ for the rows, solve (I − Hₛₛ) E = eₛ and return zₛ − E.
 */
function heldOutFrom(z: Float64Array, d: number, fitted: (row: number) => Float64Array, hat: (a: number, b: number) => number): Fit['heldOut'] {
  return (rows) => {
    const s = rows.length;
    const system = new Float64Array(s * s);
    for (let a = 0; a < s; a++) {
      for (let b = 0; b < s; b++) system[a * s + b] = (a === b ? 1 : 0) - hat(rows[a] as number, rows[b] as number);
    }
    const errors = new Float64Array(s * d);
    rows.forEach((row, a) => {
      const predicted = fitted(row);
      for (let c = 0; c < d; c++) errors[a * d + c] = (z[row * d + c] as number) - (predicted[c] as number);
    });
    cholesky(system, s);
    solveInPlace(system, s, errors, d);
    return rows.map((row, a) => {
      const out = new Float64Array(d);
      for (let c = 0; c < d; c++) out[c] = (z[row * d + c] as number) - (errors[a * d + c] as number);
      return out;
    });
  };
}

// N < d: A = (XXᵀ + λI)⁻¹ Z, Δ = XᵀA; ẑ = XXᵀA, H = I − λ(XXᵀ + λI)⁻¹.
function fitDual(x: Float64Array, z: Float64Array, n: number, d: number, lambda: number): Fit {
  const k = rowGram(x, n, d);
  for (let i = 0; i < n; i++) k[i * n + i] = (k[i * n + i] as number) + lambda;
  cholesky(k, n);
  const a = z.slice();
  solveInPlace(k, n, a, d);
  const inverseColumns = new Map<number, Float64Array>();
  const column = (j: number) => {
    let m = inverseColumns.get(j);
    if (!m) {
      m = new Float64Array(n);
      m[j] = 1;
      forward(k, n, m);
      backward(k, n, m);
      inverseColumns.set(j, m);
    }
    return m;
  };
  // ẑ = XXᵀA = (XXᵀ + λI)A − λA = Z − λA.
  const fitted = (row: number) => {
    const out = new Float64Array(d);
    for (let c = 0; c < d; c++) out[c] = (z[row * d + c] as number) - lambda * (a[row * d + c] as number);
    return out;
  };
  const hat = (p: number, q: number) => (p === q ? 1 : 0) - lambda * (column(q)[p] as number);
  return { delta: a, heldOut: heldOutFrom(z, d, fitted, hat) };
}

// N ≥ d: Δ = (XᵀX + λI)⁻¹ XᵀZ with XᵀZ = XᵀY − XᵀX; ẑᵢ = xᵢG⁻¹B, Hₐᵦ = xₐG⁻¹xᵦᵀ. XᵀY is summed
// per tool (Σₜ uₜᵀvₜ, uₜ the weighted sum of the prompts that used t), far fewer terms than examples.
function fitPrimal(
  x: Float64Array,
  z: Float64Array,
  n: number,
  d: number,
  lambda: number,
  examples: readonly ProjectionExample[],
  toolMatrix: Float32Array,
  toolCount: number,
): Fit {
  const g = columnGram(x, n, d);
  const b = new Float64Array(d * d);
  // b = XᵀY − XᵀX, then g = XᵀX + λI.
  const sums = new Map<number, Float64Array>();
  examples.forEach((example, i) => {
    const used = [...new Set(example.tools.filter((t) => t >= 0 && t < toolCount))];
    // yᵢ = cᵢ·Σₜ vₜ with cᵢ = 1 / ‖Σₜ vₜ‖.
    const weight = 1 / sumNorm(toolMatrix, used, d);
    for (const t of used) {
      let u = sums.get(t);
      if (!u) {
        u = new Float64Array(d);
        sums.set(t, u);
      }
      for (let j = 0; j < d; j++) u[j] = (u[j] as number) + weight * (x[i * d + j] as number);
    }
  });
  for (const [t, u] of sums) addOuter(b, u, toolMatrix, t * d, d);
  for (let i = 0; i < d * d; i++) b[i] = (b[i] as number) - (g[i] as number);
  for (let r = 0; r < d; r++) g[r * d + r] = (g[r * d + r] as number) + lambda;
  cholesky(g, d);
  const solvedRows = new Map<number, Float64Array>();
  const solved = (row: number) => {
    let w = solvedRows.get(row);
    if (!w) {
      w = Float64Array.from(x.subarray(row * d, row * d + d));
      forward(g, d, w);
      backward(g, d, w);
      solvedRows.set(row, w);
    }
    return w;
  };
  const fitted = (row: number) => {
    const w = solved(row);
    const out = new Float64Array(d);
    for (let r = 0; r < d; r++) {
      const weight = w[r] as number;
      for (let c = 0; c < d; c++) out[c] = (out[c] as number) + weight * (b[r * d + c] as number);
    }
    return out;
  };
  const hat = (p: number, q: number) => {
    const w = solved(q);
    let sum = 0;
    for (let c = 0; c < d; c++) sum += (x[p * d + c] as number) * (w[c] as number);
    return sum;
  };
  return { delta: b, factor: g, heldOut: heldOutFrom(z, d, fitted, hat) };
}

/** max(Good–Turing share of once-used tools' examples, share of tools no example used). */
function unseenShare(examples: readonly ProjectionExample[], toolCount: number): number {
  const uses = new Map<number, number>();
  for (const example of examples) for (const t of new Set(example.tools)) if (t >= 0 && t < toolCount) uses.set(t, (uses.get(t) ?? 0) + 1);
  let once = 0;
  for (const example of examples) if (example.tools.some((t) => uses.get(t) === 1)) once++;
  const goodTuring = examples.length > 0 ? once / examples.length : 0;
  const uncovered = toolCount > 0 ? (toolCount - uses.size) / toolCount : 0;
  return Math.max(goodTuring, uncovered);
}

/**
 * Groups for the leave-a-tool-out check: for tools used by at most 16 examples (rare enough
 * that holding all of them out stays cheap), every example that used the tool; spread over
 * the registry, at most `budget` examples in all.
 */
function rareToolGroups(examples: readonly ProjectionExample[], toolCount: number, budget: number): number[][] {
  const users = new Map<number, number[]>();
  examples.forEach((example, i) => {
    for (const t of new Set(example.tools)) {
      if (t < 0 || t >= toolCount) continue;
      const list = users.get(t) ?? [];
      list.push(i);
      users.set(t, list);
    }
  });
  // A group must leave most of the examples to fit on.
  const eligible = [...users.values()].filter((rows) => rows.length <= 16 && rows.length * 2 <= examples.length);
  const groups: number[][] = [];
  let total = 0;
  const step = Math.max(1, Math.floor(eligible.length / Math.max(1, Math.ceil(budget / 4))));
  for (let i = 0; i < eligible.length && total < budget; i += step) {
    const rows = eligible[i] as number[];
    groups.push(rows);
    total += rows.length;
  }
  return groups;
}

/** b += uᵀ·v for v the d floats of `matrix` from `offset`. */
function addOuter(b: Float64Array, u: Float64Array, matrix: Float32Array, base: number, d: number): void {
  for (let r = 0; r < d; r++) {
    const ur = u[r] as number;
    if (ur === 0) continue;
    const offset = r * d;
    for (let c = 0; c < d; c++) b[offset + c] = (b[offset + c] as number) + ur * (matrix[base + c] as number);
  }
}

function sumNorm(matrix: Float32Array, rows: readonly number[], d: number): number {
  let norm = 0;
  for (let j = 0; j < d; j++) {
    let sum = 0;
    for (const row of rows) sum += matrix[row * d + j] as number;
    norm += sum * sum;
  }
  return norm > 0 ? Math.sqrt(norm) : Infinity;
}

function meanRow(matrix: Float32Array, rows: readonly number[], count: number, d: number): Float64Array {
  const out = new Float64Array(d);
  for (const row of rows) {
    if (row < 0 || row >= count) continue;
    for (let j = 0; j < d; j++) out[j] = (out[j] as number) + (matrix[row * d + j] as number);
  }
  let norm = 0;
  for (const value of out) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let j = 0; j < d; j++) out[j] = (out[j] as number) * scale;
  return out;
}

// Both score vectors in one pass over the tool rows: s₀ = x·v and s₁ = p·v.
function scorePair(matrix: Float32Array, count: number, d: number, x: Float64Array, p: Float64Array, s0: Float64Array, s1: Float64Array): void {
  // Four tool rows per pass: each load of x and p serves four rows.
  let row = 0;
  for (; row + 4 <= count; row += 4) {
    const b0 = row * d;
    const b1 = b0 + d;
    const b2 = b1 + d;
    const b3 = b2 + d;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let c0 = 0;
    let c1 = 0;
    let c2 = 0;
    let c3 = 0;
    for (let j = 0; j < d; j++) {
      const xj = x[j] as number;
      const pj = p[j] as number;
      const v0 = matrix[b0 + j] as number;
      const v1 = matrix[b1 + j] as number;
      const v2 = matrix[b2 + j] as number;
      const v3 = matrix[b3 + j] as number;
      a0 += v0 * xj;
      a1 += v1 * xj;
      a2 += v2 * xj;
      a3 += v3 * xj;
      c0 += v0 * pj;
      c1 += v1 * pj;
      c2 += v2 * pj;
      c3 += v3 * pj;
    }
    s0[row] = a0;
    s0[row + 1] = a1;
    s0[row + 2] = a2;
    s0[row + 3] = a3;
    s1[row] = c0;
    s1[row + 1] = c1;
    s1[row + 2] = c2;
    s1[row + 3] = c3;
  }
  for (; row < count; row++) {
    let a = 0;
    let b = 0;
    const base = row * d;
    for (let j = 0; j < d; j++) {
      const v = matrix[base + j] as number;
      a += v * (x[j] as number);
      b += v * (p[j] as number);
    }
    s0[row] = a;
    s1[row] = b;
  }
}

// 1 when every used tool ranks within the top k under s₀ + α·s₁ (ties count against it).
function fullHit(s0: Float64Array, s1: Float64Array, alpha: number, used: readonly number[], k: number): number {
  let worst = Infinity;
  for (const t of used) worst = Math.min(worst, (s0[t] as number) + alpha * (s1[t] as number));
  let above = 0;
  for (let i = 0; i < s0.length; i++) {
    if ((s0[i] as number) + alpha * (s1[i] as number) > worst && !used.includes(i)) above++;
    if (above + used.length > k) return 0;
  }
  return 1;
}

// Up to `limit` rows, evenly spaced over 0..n−1.
function sampleRows(n: number, limit: number): number[] {
  if (n <= limit) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: limit }, (_, i) => Math.floor((i * n) / limit));
}
