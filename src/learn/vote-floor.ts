/**
 * How close an earlier prompt must be before its tools say anything about a new one, measured
 * on the examples themselves: for a sample of examples, the nearest other example that used
 * none of their tools. Where examples of different tools sit that close together (a registry
 * of many similar tools), a neighbour at that similarity is no evidence for its tools, and a
 * prompt that needs a tool no example used would otherwise be pulled toward the tools the
 * examples did use. The floor is a quantile of those similarities.
 */

/** At most this many examples are sampled, each compared with at most `MAX_ROWS` others. */
const SAMPLE = 32;
const MAX_ROWS = 1024;

/**
 * The quantile `q` of the similarity between a sampled example and its nearest example with
 * disjoint tools; undefined when fewer than four samples have such a neighbour. Deterministic
 * (evenly spaced samples and rows). `matrix` is row-major unit vectors, `tools[row]` the row's tools.
 *
 * @example
 * neighbourFloor(matrix, tools, 512, 0.5) // e.g. 0.71
 */
export function neighbourFloor(
  matrix: Float32Array,
  tools: readonly ReadonlySet<string>[],
  dimensions: number,
  q: number,
): number | undefined {
  const size = tools.length;
  if (size < 4 || !(q >= 0 && q <= 1)) return undefined;
  const sampleStep = Math.max(1, Math.floor(size / SAMPLE));
  const rowStep = Math.max(1, Math.ceil(size / MAX_ROWS));
  const nearest: number[] = [];
  for (let a = 0; a < size && nearest.length < SAMPLE; a += sampleStep) {
    const mine = tools[a] as ReadonlySet<string>;
    let best = -Infinity;
    for (let b = (a + 1) % rowStep; b < size; b += rowStep) {
      if (b === a) continue;
      let shared = false;
      for (const tool of tools[b] as ReadonlySet<string>) {
        if (mine.has(tool)) {
          shared = true;
          break;
        }
      }
      if (shared) continue;
      let sum = 0;
      const offsetA = a * dimensions;
      const offsetB = b * dimensions;
      for (let j = 0; j < dimensions; j++) sum += (matrix[offsetA + j] as number) * (matrix[offsetB + j] as number);
      if (sum > best) best = sum;
    }
    if (Number.isFinite(best)) nearest.push(best);
  }
  if (nearest.length < 4) return undefined;
  nearest.sort((x, y) => x - y);
  return nearest[Math.min(nearest.length - 1, Math.floor(q * (nearest.length - 1)))] as number;
}
