/**
 * Dense linear algebra for the query projection, in plain Float64 JS (no dependency, runs in
 * browsers and Workers): the Gram matrix XᵀX, a Cholesky factorisation and its triangular
 * solves. Row-major throughout. @internal
 *
 * @module
 */

/**
 * XᵀX (d×d) for X with n rows of d: the Gram matrix of X's columns, via {@link rowGram} on Xᵀ.
 */
export function columnGram(x: Float64Array, n: number, d: number): Float64Array {
  const t = new Float64Array(d * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) t[j * n + i] = x[i * d + j] as number;
  }
  return rowGram(t, d, n);
}

/**
 * The symmetric count×count matrix of dot products of `rows` (row-major, `length` values each):
 * XXᵀ. The lower triangle is computed in 4×4 tiles (sixteen running sums per pass, eight loads
 * for sixteen multiply-adds: about twice the speed of one cell at a time), then mirrored.
 */
export function rowGram(rows: Float64Array, count: number, length: number): Float64Array {
  const g = new Float64Array(count * count);
  const tiled = count - (count % 4);
  for (let r = 0; r < tiled; r += 4) {
    for (let c = 0; c <= r; c += 4) tile4(rows, length, r, c, g, count);
  }
  // Rows past the last whole tile (count not a multiple of 4), one cell at a time.
  for (let r = tiled; r < count; r++) {
    for (let c = 0; c <= r; c++) {
      let sum = 0;
      for (let k = 0; k < length; k++) sum += (rows[r * length + k] as number) * (rows[c * length + k] as number);
      g[r * count + c] = sum;
    }
  }
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < r; c++) g[c * count + r] = g[r * count + c] as number;
  }
  return g;
}

function tile4(t: Float64Array, n: number, r: number, c: number, g: Float64Array, d: number): void {
  const r0 = r * n;
  const r1 = r0 + n;
  const r2 = r1 + n;
  const r3 = r2 + n;
  const c0 = c * n;
  const c1 = c0 + n;
  const c2 = c1 + n;
  const c3 = c2 + n;
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
    const a0 = t[r0 + k] as number;
    const a1 = t[r1 + k] as number;
    const a2 = t[r2 + k] as number;
    const a3 = t[r3 + k] as number;
    const b0 = t[c0 + k] as number;
    const b1 = t[c1 + k] as number;
    const b2 = t[c2 + k] as number;
    const b3 = t[c3 + k] as number;
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
  const o0 = r * d + c;
  const o1 = o0 + d;
  const o2 = o1 + d;
  const o3 = o2 + d;
  g[o0] = s00;
  g[o0 + 1] = s01;
  g[o0 + 2] = s02;
  g[o0 + 3] = s03;
  g[o1] = s10;
  g[o1 + 1] = s11;
  g[o1 + 2] = s12;
  g[o1 + 3] = s13;
  g[o2] = s20;
  g[o2 + 1] = s21;
  g[o2 + 2] = s22;
  g[o2 + 3] = s23;
  g[o3] = s30;
  g[o3 + 1] = s31;
  g[o3 + 2] = s32;
  g[o3 + 3] = s33;
}

/**
 * In place: the lower Cholesky factor L of a symmetric positive definite n×n matrix, with Lᵀ
 * mirrored into the upper triangle, so back substitution reads rows (contiguous) too.
 */
export function cholesky(a: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    let diagonal = a[j * n + j] as number;
    for (let k = 0; k < j; k++) diagonal -= (a[j * n + k] as number) ** 2;
    // λ > 0 keeps the matrix positive definite; the floor only guards rounding.
    const root = Math.sqrt(Math.max(diagonal, 1e-12));
    a[j * n + j] = root;
    for (let i = j + 1; i < n; i++) {
      let sum = a[i * n + j] as number;
      for (let k = 0; k < j; k++) sum -= (a[i * n + k] as number) * (a[j * n + k] as number);
      a[i * n + j] = sum / root;
    }
    for (let k = j + 1; k < n; k++) a[j * n + k] = a[k * n + j] as number;
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
        b[row + c] = (b[row + c] as number) - f0 * (b[o0 + c] as number) - f1 * (b[o1 + c] as number) - f2 * (b[o2 + c] as number) - f3 * (b[o3 + c] as number);
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
