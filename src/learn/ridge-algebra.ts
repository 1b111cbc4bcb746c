/**
 * Dense linear algebra for the query projection, in plain Float64 JS (no dependency, runs in
 * browsers and Workers): the Gram matrix XᵀX, a Cholesky factorisation and its triangular
 * solves. Row-major throughout. The long ones take a {@link Pacer} and check it between strips
 * of four rows, so a fit can give its thread back; pausing never changes a result. @internal
 *
 * @module
 */

import { type Pacer, UNPACED } from './pacer.js';

/** The `cols`×`rows` transpose of a row-major `rows`×`cols` matrix. */
export function transpose(m: Float64Array, rows: number, cols: number): Float64Array {
  const t = new Float64Array(cols * rows);
  for (let i = 0; i < rows; i++) {
    const offset = i * cols;
    for (let j = 0; j < cols; j++) t[j * rows + i] = m[offset + j] as number;
  }
  return t;
}

/**
 * XᵀX (d×d) for X with n rows of d: the Gram matrix of X's columns, via {@link rowGram} on Xᵀ.
 */
export function columnGram(x: Float64Array, n: number, d: number, pace: Pacer = UNPACED): Promise<Float64Array> {
  return rowGram(transpose(x, n, d), d, n, pace);
}

/**
 * The symmetric count×count matrix of dot products of `rows` (row-major, `length` values each):
 * XXᵀ. The lower triangle is computed in 4×4 tiles ({@link rowProducts}' kernel), then mirrored.
 */
export async function rowGram(
  rows: Float64Array,
  count: number,
  length: number,
  pace: Pacer = UNPACED,
): Promise<Float64Array> {
  const g = new Float64Array(count * count);
  const sums = new Float64Array(16);
  for (let r = 0; r < count; r += 4) {
    if (pace.due()) await pace.pause();
    for (let c = 0; c <= r; c += 4) {
      tile(rows, rowOffsets(r, count, length), rows, rowOffsets(c, count, length), length, sums);
      for (let i = r; i < Math.min(r + 4, count); i++) {
        for (let j = c; j < Math.min(c + 4, i + 1); j++) g[i * count + j] = sums[(i - r) * 4 + (j - c)] as number;
      }
    }
  }
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < r; c++) g[c * count + r] = g[r * count + c] as number;
  }
  return g;
}

/**
 * ABᵀ: the `aRows`×`bRows` dot products of A's rows with B's rows (both row-major, `length`
 * values per row), in 4×4 tiles. Every cell is summed in the same order as {@link dot}, so two
 * identical rows get bit-identical products (rankings keep their exact ties).
 */
export async function rowProducts(
  a: Float64Array,
  aRows: number,
  b: Float64Array,
  bRows: number,
  length: number,
  pace: Pacer = UNPACED,
): Promise<Float64Array> {
  const out = new Float64Array(aRows * bRows);
  const sums = new Float64Array(16);
  for (let r = 0; r < aRows; r += 4) {
    if (pace.due()) await pace.pause();
    const aOffsets = rowOffsets(r, aRows, length);
    for (let c = 0; c < bRows; c += 4) {
      tile(a, aOffsets, b, rowOffsets(c, bRows, length), length, sums);
      for (let i = r; i < Math.min(r + 4, aRows); i++) {
        for (let j = c; j < Math.min(c + 4, bRows); j++) out[i * bRows + j] = sums[(i - r) * 4 + (j - c)] as number;
      }
    }
  }
  return out;
}

/** The dot product of row `r` of `a` with row `c` of `b` (`length` values each). */
export function dot(a: Float64Array, r: number, b: Float64Array, c: number, length: number): number {
  let sum = 0;
  const ra = r * length;
  const cb = c * length;
  for (let k = 0; k < length; k++) sum += (a[ra + k] as number) * (b[cb + k] as number);
  return sum;
}

/**
 * In place: each of the `m` rows of `v` (n values each, one right-hand side per row) becomes
 * (LLᵀ)⁻¹ times itself, for L the factor from {@link cholesky}. Blocks of four unknowns: what
 * the solved ones contribute is one 4×4 tile per four right-hand sides (the same kernel as the
 * Gram matrix), and only the small triangle inside each block is solved one value at a time.
 */
export async function solveRows(
  l: Float64Array,
  n: number,
  v: Float64Array,
  m: number,
  pace: Pacer = UNPACED,
): Promise<void> {
  const sums = new Float64Array(16);
  const vOffsets = new Int32Array(4);
  // Forward, L y = v: unknown i needs Σₖ<ᵢ L[i,k]·yₖ.
  for (let i0 = 0; i0 < n; i0 += 4) {
    if (pace.due()) await pace.pause();
    const size = Math.min(4, n - i0);
    const lOffsets = rowOffsets(i0, n, n);
    for (let r0 = 0; r0 < m; r0 += 4) {
      for (let b = 0; b < 4; b++) vOffsets[b] = Math.min(r0 + b, m - 1) * n;
      if (i0 > 0) tile(l, lOffsets, v, vOffsets, i0, sums);
      for (let r = r0; r < Math.min(r0 + 4, m); r++) {
        const base = r * n;
        for (let a = 0; a < size; a++) {
          const i = i0 + a;
          let value = (v[base + i] as number) - (i0 > 0 ? (sums[a * 4 + (r - r0)] as number) : 0);
          for (let k = i0; k < i; k++) value -= (l[i * n + k] as number) * (v[base + k] as number);
          v[base + i] = value / (l[i * n + i] as number);
        }
      }
    }
  }
  // Backward, Lᵀ x = y: unknown i needs Σₖ>ᵢ L[k,i]·xₖ, read from row i of the upper triangle.
  for (let i0 = Math.floor((n - 1) / 4) * 4; i0 >= 0; i0 -= 4) {
    if (pace.due()) await pace.pause();
    const end = Math.min(i0 + 4, n);
    const size = end - i0;
    const lOffsets = rowOffsets(i0, n, n);
    for (let b = 0; b < 4; b++) lOffsets[b] = (lOffsets[b] as number) + end;
    for (let r0 = 0; r0 < m; r0 += 4) {
      for (let b = 0; b < 4; b++) vOffsets[b] = Math.min(r0 + b, m - 1) * n + end;
      if (end < n) tile(l, lOffsets, v, vOffsets, n - end, sums);
      for (let r = r0; r < Math.min(r0 + 4, m); r++) {
        const base = r * n;
        for (let a = size - 1; a >= 0; a--) {
          const i = i0 + a;
          let value = (v[base + i] as number) - (end < n ? (sums[a * 4 + (r - r0)] as number) : 0);
          for (let k = i + 1; k < end; k++) value -= (l[i * n + k] as number) * (v[base + k] as number);
          v[base + i] = value / (l[i * n + i] as number);
        }
      }
    }
  }
}

// The offsets of rows first..first+3 (the last row repeated past `count`: a partial tile
// computes a few cells nobody reads instead of needing its own loop).
function rowOffsets(first: number, count: number, length: number): Int32Array {
  const offsets = new Int32Array(4);
  for (let i = 0; i < 4; i++) offsets[i] = Math.min(first + i, count - 1) * length;
  return offsets;
}

// sums[4i + j] = Σₖ a[aOffsets[i] + k]·b[bOffsets[j] + k] for k < length: sixteen running sums
// per pass, eight loads for sixteen multiply-adds (about twice the speed of one cell at a time).
function tile(
  a: Float64Array,
  aOffsets: Int32Array,
  b: Float64Array,
  bOffsets: Int32Array,
  n: number,
  sums: Float64Array,
): void {
  const r0 = aOffsets[0] as number;
  const r1 = aOffsets[1] as number;
  const r2 = aOffsets[2] as number;
  const r3 = aOffsets[3] as number;
  const c0 = bOffsets[0] as number;
  const c1 = bOffsets[1] as number;
  const c2 = bOffsets[2] as number;
  const c3 = bOffsets[3] as number;
  let s00 = 0;
  let s01 = 0;
  let s02 = 0;
  let s03 = 0;
  let s10 = 0;
  let s11 = 0;
  let s12 = 0;
  let s13 = 0;
  let s20 = 0;
  let s21 = 0;
  let s22 = 0;
  let s23 = 0;
  let s30 = 0;
  let s31 = 0;
  let s32 = 0;
  let s33 = 0;
  for (let k = 0; k < n; k++) {
    const a0 = a[r0 + k] as number;
    const a1 = a[r1 + k] as number;
    const a2 = a[r2 + k] as number;
    const a3 = a[r3 + k] as number;
    const b0 = b[c0 + k] as number;
    const b1 = b[c1 + k] as number;
    const b2 = b[c2 + k] as number;
    const b3 = b[c3 + k] as number;
    s00 += a0 * b0;
    s01 += a0 * b1;
    s02 += a0 * b2;
    s03 += a0 * b3;
    s10 += a1 * b0;
    s11 += a1 * b1;
    s12 += a1 * b2;
    s13 += a1 * b3;
    s20 += a2 * b0;
    s21 += a2 * b1;
    s22 += a2 * b2;
    s23 += a2 * b3;
    s30 += a3 * b0;
    s31 += a3 * b1;
    s32 += a3 * b2;
    s33 += a3 * b3;
  }
  sums[0] = s00;
  sums[1] = s01;
  sums[2] = s02;
  sums[3] = s03;
  sums[4] = s10;
  sums[5] = s11;
  sums[6] = s12;
  sums[7] = s13;
  sums[8] = s20;
  sums[9] = s21;
  sums[10] = s22;
  sums[11] = s23;
  sums[12] = s30;
  sums[13] = s31;
  sums[14] = s32;
  sums[15] = s33;
}

/**
 * In place: the lower Cholesky factor L of a symmetric positive definite n×n matrix, with Lᵀ
 * mirrored into the upper triangle, so back substitution reads rows (contiguous) too.
 */
export async function cholesky(a: Float64Array, n: number, pace: Pacer = UNPACED): Promise<void> {
  for (let j = 0; j < n; j++) {
    if (pace.due()) await pace.pause();
    const rowJ = j * n;
    let diagonal = a[rowJ + j] as number;
    for (let k = 0; k < j; k++) diagonal -= (a[rowJ + k] as number) ** 2;
    // λ > 0 keeps the matrix positive definite; the floor only guards rounding.
    const root = Math.sqrt(Math.max(diagonal, 1e-12));
    a[rowJ + j] = root;
    // Four rows per pass share each load of row j (each sum keeps its one-at-a-time order).
    let i = j + 1;
    for (; i + 4 <= n; i += 4) {
      const o0 = i * n;
      const o1 = o0 + n;
      const o2 = o1 + n;
      const o3 = o2 + n;
      let s0 = a[o0 + j] as number;
      let s1 = a[o1 + j] as number;
      let s2 = a[o2 + j] as number;
      let s3 = a[o3 + j] as number;
      for (let k = 0; k < j; k++) {
        const f = a[rowJ + k] as number;
        s0 -= (a[o0 + k] as number) * f;
        s1 -= (a[o1 + k] as number) * f;
        s2 -= (a[o2 + k] as number) * f;
        s3 -= (a[o3 + k] as number) * f;
      }
      a[o0 + j] = s0 / root;
      a[o1 + j] = s1 / root;
      a[o2 + j] = s2 / root;
      a[o3 + j] = s3 / root;
    }
    for (; i < n; i++) {
      let sum = a[i * n + j] as number;
      for (let k = 0; k < j; k++) sum -= (a[i * n + k] as number) * (a[rowJ + k] as number);
      a[i * n + j] = sum / root;
    }
    for (let k = j + 1; k < n; k++) a[rowJ + k] = a[k * n + j] as number;
  }
}

/** In place: solve L y = v for one vector. */
export function forward(l: Float64Array, n: number, v: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let sum = v[i] as number;
    for (let k = 0; k < i; k++) sum -= (l[i * n + k] as number) * (v[k] as number);
    v[i] = sum / (l[i * n + i] as number);
  }
}

/** In place: solve Lᵀ y = v for one vector (Lᵀ is the factor's upper triangle, read by rows). */
export function backward(l: Float64Array, n: number, v: Float64Array): void {
  for (let i = n - 1; i >= 0; i--) {
    let sum = v[i] as number;
    for (let k = i + 1; k < n; k++) sum -= (l[i * n + k] as number) * (v[k] as number);
    v[i] = sum / (l[i * n + i] as number);
  }
}

/** In place: B ← (LLᵀ)⁻¹ B for an n×m row-major B. */
export function solveInPlace(l: Float64Array, n: number, b: Float64Array, m: number): void {
  // Forward: row i −= Σₖ<ᵢ L[i,k]·row k; backward: row i −= Σₖ>ᵢ L[k,i]·row k. Four rows per
  // pass, so each element of row i is loaded and stored once per four.
  const eliminate = (i: number, others: readonly number[], factorOf: (k: number) => number) => {
    const row = i * m;
    let t = 0;
    for (; t + 4 <= others.length; t += 4) {
      const k0 = others[t] as number;
      const k1 = others[t + 1] as number;
      const k2 = others[t + 2] as number;
      const k3 = others[t + 3] as number;
      const f0 = factorOf(k0);
      const f1 = factorOf(k1);
      const f2 = factorOf(k2);
      const f3 = factorOf(k3);
      const o0 = k0 * m;
      const o1 = k1 * m;
      const o2 = k2 * m;
      const o3 = k3 * m;
      for (let c = 0; c < m; c++) {
        b[row + c] =
          (b[row + c] as number) -
          f0 * (b[o0 + c] as number) -
          f1 * (b[o1 + c] as number) -
          f2 * (b[o2 + c] as number) -
          f3 * (b[o3 + c] as number);
      }
    }
    for (; t < others.length; t++) {
      const k = others[t] as number;
      const f = factorOf(k);
      const o = k * m;
      for (let c = 0; c < m; c++) b[row + c] = (b[row + c] as number) - f * (b[o + c] as number);
    }
    const inverse = 1 / (l[i * n + i] as number);
    for (let c = 0; c < m; c++) b[row + c] = (b[row + c] as number) * inverse;
  };
  const below: number[] = [];
  for (let i = 0; i < n; i++) {
    eliminate(i, below, (k) => l[i * n + k] as number);
    below.push(i);
  }
  const above: number[] = [];
  for (let i = n - 1; i >= 0; i--) {
    eliminate(i, above, (k) => l[k * n + i] as number);
    above.push(i);
  }
}
