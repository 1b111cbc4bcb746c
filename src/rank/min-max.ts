/**
 * The lowest and highest of a list of scores, NaN skipped; `[0, 0]` when nothing is finite to
 * compare (an empty list). Selectors scale a score by this spread before blending it.
 *
 * @example
 * minMax(new Float32Array([0.2, 0.9, 0.5])) // [0.2, 0.9] (as float32)
 */
export function minMax(values: ArrayLike<number>): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return Number.isFinite(low) ? [low, high] : [0, 0];
}
