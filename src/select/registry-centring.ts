/**
 * Registry-level centring of the dense half. Sentence-encoder vectors share a common
 * direction, so every tool of a registry sits close to every query; subtracting the
 * registry's own mean tool vector (and, optionally, its top principal directions: "all but
 * the top") before the cosine leaves what tells the tools apart. Unsupervised: it is computed
 * from the registry's tool vectors alone, so it fits nothing to labels and works on any
 * registry. Stored vectors stay raw; this is applied at scoring time.
 */

/** How the dense half centres (see {@link registryCentring}). */
export interface CentringOptions {
  /**
   * Shrinkage for small registries: the mean is weighted `n / (n + shrink)` for `n` tools, so
   * a registry of one or a few tools is barely moved (and identical tools never cancel out).
   */
  shrink?: number;
  /** Top principal directions of the registry's (centred) tool vectors removed too: 0, 1 or 2. */
  directions?: number;
  /** Principal directions are removed only from registries of at least this many tools. */
  directionsMinTools?: number;
}

/** The defaults: the mean only, shrunk for small registries. */
export const CENTRING_DEFAULTS = { shrink: 8, directions: 0, directionsMinTools: 16 } as const;

/** One registry's centring: what is removed from every vector, and the tools already centred. */
export interface Centring {
  /** The (shrunk) mean tool vector that is subtracted. */
  readonly mean: Float32Array;
  /** Unit principal directions that are projected out. */
  readonly directions: readonly Float32Array[];
  /** The tool rows centred and re-normalised, row-major, registry order. */
  readonly matrix: Float32Array;
}

/**
 * The centring of a registry's unit tool vectors (row-major `count × dimensions`): the
 * shrunk mean, the top principal directions when asked for, and the centred unit rows. A row
 * that centring would leave (numerically) empty keeps its raw vector.
 *
 * @example
 * const centring = registryCentring(corpus.matrix, corpus.count, corpus.dimensions, { directions: 1 })
 * const query = centreVector(queryVector, centring)
 */
export function registryCentring(matrix: Float32Array, count: number, dimensions: number, options: CentringOptions = {}): Centring {
  const { shrink, directions: wanted, directionsMinTools } = { ...CENTRING_DEFAULTS, ...options };
  const mean = new Float64Array(dimensions);
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    for (let j = 0; j < dimensions; j++) mean[j] = (mean[j] as number) + (matrix[offset + j] as number);
  }
  for (let j = 0; j < dimensions; j++) mean[j] = count > 0 ? (mean[j] as number) / count : 0;
  const directions = count >= directionsMinTools ? principalDirections(matrix, count, dimensions, mean, Math.min(wanted, 2)) : [];
  const weight = count / (count + Math.max(0, shrink));
  const shrunk = Float32Array.from(mean, (value) => value * weight);
  const centring = { mean: shrunk, directions, matrix: new Float32Array(count * dimensions) };
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    const raw = matrix.subarray(offset, offset + dimensions);
    centring.matrix.set(centreVector(raw, centring), offset);
  }
  return centring;
}

/**
 * `vector` with the registry's shrunk mean subtracted and its principal directions projected
 * out, re-normalised to unit length; the vector itself (a copy) when nothing would remain.
 *
 * @example
 * scoreRows(centring.matrix, count, dimensions, centreVector(query, centring), out)
 */
export function centreVector(vector: Float32Array, centring: Pick<Centring, 'mean' | 'directions'>): Float32Array {
  const out = new Float64Array(vector.length);
  for (let j = 0; j < out.length; j++) out[j] = (vector[j] as number) - ((centring.mean[j] as number) || 0);
  for (const direction of centring.directions) {
    const along = dot(out, direction);
    for (let j = 0; j < out.length; j++) out[j] = (out[j] as number) - along * (direction[j] as number);
  }
  const norm = Math.sqrt(dot(out, out));
  // Why a floor relative to the input: an identical-to-the-mean vector must not become noise.
  if (!(norm > 1e-6 * Math.max(Math.sqrt(dot(vector, vector)), 1e-30))) return Float32Array.from(vector);
  return Float32Array.from(out, (value) => value / norm);
}

/**
 * The top `k` principal directions of the rows minus `mean`, by power iteration with
 * deflation (deterministic start). Directions of (near) zero variance are left out.
 */
function principalDirections(matrix: Float32Array, count: number, dimensions: number, mean: Float64Array, k: number): Float32Array[] {
  const found: Float64Array[] = [];
  const centred = new Float64Array(count * dimensions);
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    for (let j = 0; j < dimensions; j++) centred[offset + j] = (matrix[offset + j] as number) - (mean[j] as number);
  }
  for (let d = 0; d < k; d++) {
    let v: Float64Array = new Float64Array(dimensions).fill(1 / Math.sqrt(dimensions));
    let value = 0;
    for (let iteration = 0; iteration < 200; iteration++) {
      const next = covarianceTimes(centred, count, dimensions, v);
      for (const u of found) {
        const along = dot(next, u);
        for (let j = 0; j < dimensions; j++) next[j] = (next[j] as number) - along * (u[j] as number);
      }
      const norm = Math.sqrt(dot(next, next));
      if (!(norm > 1e-12)) return found.map((u) => Float32Array.from(u));
      for (let j = 0; j < dimensions; j++) next[j] = (next[j] as number) / norm;
      const settled = Math.abs(norm - value) <= 1e-9 * norm;
      value = norm;
      v = next;
      if (settled) break;
    }
    found.push(v);
  }
  return found.map((u) => Float32Array.from(u));
}

/** `Xᵀ(X v)` for the row-major `count × dimensions` matrix X. */
function covarianceTimes(x: Float64Array, count: number, dimensions: number, v: Float64Array): Float64Array {
  const out = new Float64Array(dimensions);
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    let along = 0;
    for (let j = 0; j < dimensions; j++) along += (x[offset + j] as number) * (v[j] as number);
    for (let j = 0; j < dimensions; j++) out[j] = (out[j] as number) + along * (x[offset + j] as number);
  }
  return out;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let j = 0; j < a.length; j++) sum += (a[j] as number) * (b[j] as number);
  return sum;
}
