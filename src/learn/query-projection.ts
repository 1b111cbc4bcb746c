/**
 * A learned linear map of the query vector, fitted on the registry's own examples: the map
 * that moves each learned prompt toward the tools it used, shrunk toward "no change".
 *
 * Closed-form ridge regression in Float64, no training loop:
 * `W = argmin Σᵢ ‖xᵢW − yᵢ‖² + λ‖W − I‖²`, with xᵢ a learned prompt's unit vector and yᵢ the
 * normalised mean of its tools' unit vectors, pushed away from the few tools that wrongly
 * outranked them for xᵢ (`contrast`: the map learns what separates a registry's near-namesakes,
 * not only where its prompts point). Written as `W = I + Δ`, Δ is the ridge fit of the
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
import { mergeOptions } from '../options.js';
import { type Pacer, UNPACED } from './pacer.js';
import {
  backward,
  cholesky,
  columnGram,
  dot,
  forward,
  rowGram,
  rowProducts,
  solveInPlace,
  solveRows,
  transpose,
} from './ridge-algebra.js';

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
   * registry twice, counted so even when the hard-negative search already ranked it once), so a
   * big registry scores fewer examples; never fewer than 48.
   */
  checkBudget?: number;
  /**
   * How far each learned prompt's target moves away from the tools that wrongly outranked its
   * own (its hard negatives): the target is `normalise(p̂ − contrast·n̂)`, p̂ the normalised mean
   * of the tools it used and n̂ of up to `negatives` unused tools that scored at least as high
   * as the lowest of them. 0 fits toward the used tools alone.
   */
  contrast?: number;
  /** Hard negatives per example at most (see `contrast`). */
  negatives?: number;
  /**
   * Multiply-adds the hard-negative search may spend (each searched example ranks the whole
   * registry once): beyond it, only the first examples of the fit's fixed sample get negatives
   * and the rest fit toward their tools alone; never fewer than 64 examples.
   */
  contrastBudget?: number;
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
  contrast: 0.5,
  negatives: 3,
  contrastBudget: 500_000_000,
  minExamples: 8,
  maxExamples: 2048,
};

/** One learned example as the fit sees it: the prompt's unit vector and its tools' rows. */
export interface ProjectionExample {
  readonly vector: Float32Array;
  readonly tools: readonly number[];
  /**
   * What orders the example for sampling (the learned prompt). Without it the vector's bytes
   * do, which float rounding in the embedder (a prompt embedded alone or in a batch) can move.
   */
  readonly key?: string;
}

/** A fitted map and what the check decided. */
export interface QueryProjection {
  /**
   * Δ, already scaled by `blend`: a query becomes `x + xΔ`, and Δ is never formed. From the
   * dual (fewer examples than dimensions), `Δ = Xᵀ(XXᵀ + λI)⁻¹Z` kept as `rank` rows of `basis`
   * (X), the Cholesky factor of XXᵀ + λI in `factor` and Z in `delta`. From the primal,
   * `Δ = G⁻¹·B` kept as the Cholesky factor of G in `factor` and B (d×d) in `delta`. Either
   * way a query pays two triangular solves instead of the fit solving for all of Δ.
   */
  readonly delta: Float64Array;
  readonly basis?: Float64Array;
  readonly rank?: number;
  readonly factor: Float64Array;
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
 * unit rows of `dimensions`). Pure; with a `pace` (for example `timeSlices()`, ./pacer.ts) it gives its
 * thread back between steps, and the result is the same as without.
 *
 * @example
 * const fitted = await fitProjection([{ vector: q, tools: [3] }, …], corpus.matrix, corpus.count, 512)
 * if (fitted.delta) projectQuery(fitted, q)
 */
export async function fitProjection(
  examples: readonly ProjectionExample[],
  toolMatrix: Float32Array,
  toolCount: number,
  dimensions: number,
  options: ProjectionOptions = {},
  pace: Pacer = UNPACED,
): Promise<QueryProjection | ProjectionDeclined> {
  const settings = mergeOptions(PROJECTION_DEFAULTS, options);
  // Ordered by a hash of each prompt: the fit, the sample beyond `maxExamples` and the held-out
  // check's sample are then the same whatever order the examples arrived in.
  const encoder = new TextEncoder();
  const usable = examples
    .filter((example) => example.vector.length === dimensions && example.tools.some((t) => t >= 0 && t < toolCount))
    .map((example) => ({
      example,
      key: checksumBytes(
        example.key !== undefined
          ? encoder.encode(example.key)
          : new Uint8Array(example.vector.buffer, example.vector.byteOffset, example.vector.byteLength),
      ),
    }))
    .sort((a, b) => a.key - b.key)
    .slice(0, Math.max(1, settings.maxExamples))
    .map(({ example }) => example);
  if (usable.length < settings.minExamples)
    return { reason: `${usable.length} examples, fewer than ${settings.minExamples}` };
  if (pace.due()) await pace.pause();
  const d = dimensions;
  const n = usable.length;
  const tools64 = Float64Array.from(toolMatrix.subarray(0, toolCount * d));
  const { x, fit, registryScores } = await fitRidge(usable, tools64, toolCount, d, settings, pace);

  // Two held-out checks, both exact for ridge regression (no refit): leave one example out,
  // and leave out every example of a rarely used tool (a tool the map never saw: the case
  // that a vote cannot help and a bad map would hurt). Ranking is invariant to the query's
  // norm, so at blend α the tools score s₀ + α·s₁ with s₀ = x·v and s₁ = ẑ₋ₛ·v.
  const blends = [0, ...settings.blends.filter((b) => b > 0 && b <= 1)];
  const checkK = Math.max(1, Math.min(settings.checkK, Math.floor(toolCount / 8)));
  // Per held-out row, whether its tools made the top checkK at each blend. All rows of all
  // groups are predicted in one batch, then ranked against the registry in blocks of rows
  // (matrix products rather than one row at a time).
  const score = async (groups: readonly (readonly number[])[]): Promise<Uint8Array[]> => {
    const rows = groups.flat();
    const predicted = await fit.heldOut(groups, pace);
    const out: Uint8Array[] = [];
    for (let start = 0; start < rows.length; start += SCORE_BLOCK) {
      const block = rows.slice(start, start + SCORE_BLOCK);
      // s₀ is each prompt's own ranking: the hard-negative search already computed it for the
      // examples it searched, so only the others are ranked here.
      const unranked = block.filter((row) => !registryScores[row]);
      const s0 =
        unranked.length > 0
          ? await rowProducts(gatherRows(x, unranked, d), unranked.length, tools64, toolCount, d, pace)
          : undefined;
      const s1 = await rowProducts(
        predicted.subarray(start * d, (start + block.length) * d),
        block.length,
        tools64,
        toolCount,
        d,
        pace,
      );
      block.forEach((row, r) => {
        const used = usable[row]?.tools.filter((t) => t >= 0 && t < toolCount) ?? [];
        const at = unranked.indexOf(row);
        const first = registryScores[row] ?? (s0 as Float64Array).subarray(at * toolCount, (at + 1) * toolCount);
        const second = s1.subarray(r * toolCount, (r + 1) * toolCount);
        out.push(Uint8Array.from(blends, (alpha) => fullHit(first, second, alpha, used, checkK)));
      });
    }
    return out;
  };
  // Each scored row ranks the whole registry twice; a big registry gets fewer rows (at least 48).
  const perCheck = Math.min(settings.checkExamples, Math.max(48, Math.floor(settings.checkBudget / (toolCount * d))));
  const single = await score(sampleRows(n, perCheck).map((row) => [row]));
  const groups = await score(rareToolGroups(usable, toolCount, perCheck));
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
  if (n >= d) return { delta, factor: fit.factor, dimensions: d, blend, check };
  return { delta, factor: fit.factor, basis: x, rank: n, dimensions: d, blend, check };
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
  if (basis && rank !== undefined && factor) {
    // Low rank: xΔ = ((x·Xᵀ)(XXᵀ + λI)⁻¹)·Z, the middle by the factor's two solves.
    const weights = new Float64Array(rank);
    for (let r = 0; r < rank; r++) {
      let weight = 0;
      const offset = r * d;
      for (let j = 0; j < d; j++) weight += (basis[offset + j] as number) * (query[j] as number);
      weights[r] = weight;
    }
    forward(factor, rank, weights);
    backward(factor, rank, weights);
    accumulateRows(weights, delta, d, out);
  } else if (factor) {
    // xΔ = (G⁻¹x)ᵀB: G is symmetric, so solve with its factor, then one pass over B.
    const solved = Float64Array.from(query);
    forward(factor, d, solved);
    backward(factor, d, solved);
    accumulateRows(solved, delta, d, out);
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

/**
 * The ridge fit on `examples` (all of them, in order) against the registry's rows `tools64`:
 * the design X, the solved system for the residual targets Z = Y − X (dual below d examples,
 * primal from d) and each searched example's scores against the registry.
 */
async function fitRidge(
  examples: readonly ProjectionExample[],
  tools64: Float64Array,
  toolCount: number,
  d: number,
  settings: {
    readonly lambda: number;
    readonly contrast: number;
    readonly negatives: number;
    readonly contrastBudget: number;
  },
  pace: Pacer,
) {
  const n = examples.length;
  const x = new Float64Array(n * d);
  examples.forEach((example, i) => {
    x.set(example.vector, i * d);
  });
  const { targets, registryScores } = await targetTerms(examples, x, tools64, toolCount, d, settings, pace);
  const z = new Float64Array(n * d); // residuals yᵢ − xᵢ
  targets.forEach(({ tools, weights }, i) => {
    const offset = i * d;
    for (let j = 0; j < d; j++) z[offset + j] = -(x[offset + j] as number);
    tools.forEach((t, k) => {
      const weight = weights[k] as number;
      for (let j = 0; j < d; j++) z[offset + j] = (z[offset + j] as number) + weight * (tools64[t * d + j] as number);
    });
  });
  const fit =
    n < d
      ? await fitDual(x, z, n, d, settings.lambda, pace)
      : await fitPrimal(x, z, n, d, settings.lambda, targets, tools64, pace);
  return { x, fit, registryScores };
}

/** An example's regression target as a weighted sum of tool rows: yᵢ = Σₖ weightsₖ · v(toolsₖ). */
interface TargetTerms {
  readonly tools: readonly number[];
  readonly weights: readonly number[];
}

/**
 * Each example's target: toward the tools it used, and (with `contrast`) away from the unused
 * tools that its own vector ranks at least as high as the lowest used one. Negatives come from
 * the example alone, so leaving it out of the fit leaves every other target unchanged.
 */
async function targetTerms(
  examples: readonly ProjectionExample[],
  x: Float64Array,
  tools64: Float64Array,
  toolCount: number,
  d: number,
  settings: { readonly contrast: number; readonly negatives: number; readonly contrastBudget: number },
  pace: Pacer,
): Promise<{ targets: TargetTerms[]; registryScores: (Float64Array | undefined)[] }> {
  const { contrast } = settings;
  const negatives = Math.max(0, Math.floor(settings.negatives));
  // The examples come in the fit's fixed hash order, so the searched ones are a fixed sample.
  const searched =
    contrast > 0 && negatives > 0 ? Math.max(64, Math.floor(settings.contrastBudget / (toolCount * d))) : 0;
  const out: TargetTerms[] = [];
  // Each searched example's scores against the registry, kept for the held-out check.
  const registryScores: (Float64Array | undefined)[] = [];
  for (let start = 0; start < examples.length; start += SCORE_BLOCK) {
    const count = Math.min(SCORE_BLOCK, examples.length - start);
    const ranked = Math.max(0, Math.min(count, searched - start));
    const scores =
      ranked > 0
        ? await rowProducts(x.subarray(start * d, (start + ranked) * d), ranked, tools64, toolCount, d, pace)
        : undefined;
    for (let r = 0; r < count; r++) {
      const used = [
        ...new Set((examples[start + r] as ProjectionExample).tools.filter((t) => t >= 0 && t < toolCount)),
      ];
      const toward = 1 / sumNorm(tools64, used, d);
      const own = scores && r < ranked ? scores.subarray(r * toolCount, (r + 1) * toolCount) : undefined;
      registryScores.push(own);
      const hard = own ? hardNegatives(own, used, negatives) : [];
      if (hard.length === 0) {
        out.push({ tools: used, weights: used.map(() => toward) });
        continue;
      }
      const away = contrast / sumNorm(tools64, hard, d);
      const tools = [...used, ...hard];
      const weights = [...used.map(() => toward), ...hard.map(() => -away)];
      const scale = 1 / sumNorm(tools64, tools, d, weights);
      out.push({ tools, weights: weights.map((weight) => weight * scale) });
    }
  }
  return { targets: out, registryScores };
}

// Up to `limit` unused tools scoring at least the lowest used one, highest first.
function hardNegatives(scores: Float64Array, used: readonly number[], limit: number): number[] {
  let floor = Infinity;
  for (const t of used) floor = Math.min(floor, scores[t] as number);
  const above: number[] = [];
  for (let t = 0; t < scores.length; t++) if ((scores[t] as number) >= floor && !used.includes(t)) above.push(t);
  return above.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b).slice(0, limit);
}

/**
 * The held-out check's predictions, for tests: for each group of example indices, the residual
 * ẑ each of its examples gets from the ridge map fitted on all the other examples (computed
 * exactly from the full fit, without refitting). Rows of all groups in order, d values each.
 * @internal
 */
export async function heldOutResiduals(
  examples: readonly ProjectionExample[],
  toolMatrix: Float32Array,
  toolCount: number,
  dimensions: number,
  lambda: number,
  groups: readonly (readonly number[])[],
  options: { contrast?: number; negatives?: number; contrastBudget?: number } = {},
): Promise<Float64Array> {
  const tools64 = Float64Array.from(toolMatrix.subarray(0, toolCount * dimensions));
  const settings = mergeOptions(
    { lambda, contrast: 0, negatives: 0, contrastBudget: Number.POSITIVE_INFINITY },
    options,
  );
  const { fit } = await fitRidge(examples, tools64, toolCount, dimensions, settings, UNPACED);
  return fit.heldOut(groups, UNPACED);
}

/** Held-out rows scored against the registry per block (bounds the score matrices' memory). */
const SCORE_BLOCK = 32;

// out += Σᵣ weightsᵣ · row r of `rows` (d values per row).
function accumulateRows(weights: Float64Array, rows: Float64Array, d: number, out: Float64Array): void {
  for (let r = 0; r < weights.length; r++) {
    const weight = weights[r] as number;
    const offset = r * d;
    for (let j = 0; j < d; j++) out[j] = (out[j] as number) + weight * (rows[offset + j] as number);
  }
}

interface Fit {
  /** (dual) Z with Δ = Xᵀ(LLᵀ)⁻¹Z, or (primal) B with Δ = (LLᵀ)⁻¹B, L the factor. */
  readonly delta: Float64Array;
  readonly factor: Float64Array;
  /**
   * For each group of rows, the predicted residual ẑ of each of its rows had the whole group
   * been left out of the fit: eₛ₋ = (I − Hₛₛ)⁻¹ eₛ with e = z − ẑ and H the hat matrix (exact
   * for ridge regression). Rows of all groups in order, d values each.
   */
  heldOut(groups: readonly (readonly number[])[], pace: Pacer): Promise<Float64Array>;
}

/**
 * The shared held-out algebra: given the fitted residuals ẑ of all groups' rows (in order, d
 * each) and the hat-matrix entries Hₐᵦ within each group, solve (I − Hₛₛ) E = eₛ per group and
 * return zₛ − E.
 */
async function heldOutFrom(
  z: Float64Array,
  d: number,
  groups: readonly (readonly number[])[],
  fitted: Float64Array,
  hat: (a: number, b: number) => number,
  pace: Pacer,
): Promise<Float64Array> {
  const out = new Float64Array(fitted.length);
  let offset = 0;
  for (const rows of groups) {
    if (pace.due()) await pace.pause();
    const s = rows.length;
    const system = new Float64Array(s * s);
    for (let a = 0; a < s; a++) {
      for (let b = 0; b < s; b++) system[a * s + b] = (a === b ? 1 : 0) - hat(rows[a] as number, rows[b] as number);
    }
    const errors = new Float64Array(s * d);
    rows.forEach((row, a) => {
      const base = (offset + a) * d;
      for (let c = 0; c < d; c++) errors[a * d + c] = (z[row * d + c] as number) - (fitted[base + c] as number);
    });
    await cholesky(system, s);
    solveInPlace(system, s, errors, d);
    rows.forEach((row, a) => {
      const base = (offset + a) * d;
      for (let c = 0; c < d; c++) out[base + c] = (z[row * d + c] as number) - (errors[a * d + c] as number);
    });
    offset += s;
  }
  return out;
}

// N < d: Δ = Xᵀ(XXᵀ + λI)⁻¹Z, kept factored (X, the Cholesky factor of XXᵀ + λI, and Z): a
// query pays x·Xᵀ, two triangular solves and a pass over Z, and the fit never solves for all
// of A = (XXᵀ + λI)⁻¹Z. Held out: ẑ = XXᵀA = Z − λA, H = I − λ(XXᵀ + λI)⁻¹, so only the rows
// of the inverse for the scored rows are needed.
async function fitDual(
  x: Float64Array,
  z: Float64Array,
  n: number,
  d: number,
  lambda: number,
  pace: Pacer,
): Promise<Fit> {
  const k = await rowGram(x, n, d, pace);
  for (let i = 0; i < n; i++) k[i * n + i] = (k[i * n + i] as number) + lambda;
  await cholesky(k, n, pace);
  return {
    delta: z.slice(),
    factor: k,
    heldOut: async (groups, pace) => {
      const { unique, index, positions } = scoredRows(groups);
      const s = unique.length;
      // Rows of (XXᵀ + λI)⁻¹ (symmetric): solve the unit vectors eₛ, then Aₛ = those rows · Z.
      const inverse = new Float64Array(s * n);
      unique.forEach((row, i) => {
        inverse[i * n + row] = 1;
      });
      await solveRows(k, n, inverse, s, pace);
      const aRows = await rowProducts(inverse, s, transpose(z, n, d), d, n, pace);
      const fittedUnique = gatherRows(z, unique, d);
      for (let i = 0; i < s * d; i++) fittedUnique[i] = (fittedUnique[i] as number) - lambda * (aRows[i] as number);
      const hat = (p: number, q: number) =>
        (p === q ? 1 : 0) - lambda * (inverse[(index.get(q) as number) * n + p] as number);
      return heldOutFrom(z, d, groups, gatherRows(fittedUnique, positions, d), hat, pace);
    },
  };
}

// N ≥ d: Δ = (XᵀX + λI)⁻¹ XᵀZ with XᵀZ = XᵀY − XᵀX; ẑᵢ = xᵢG⁻¹B, Hₐᵦ = xₐG⁻¹xᵦᵀ. XᵀY is summed
// per tool (Σₜ uₜᵀvₜ, uₜ the weighted sum of the prompts that used t), far fewer terms than examples.
async function fitPrimal(
  x: Float64Array,
  z: Float64Array,
  n: number,
  d: number,
  lambda: number,
  targets: readonly TargetTerms[],
  tools64: Float64Array,
  pace: Pacer,
): Promise<Fit> {
  const g = await columnGram(x, n, d, pace);
  // uₜ for every target tool t, as the columns of U (d × used) beside vₜ as the columns of V.
  const sums = new Map<number, Float64Array>();
  targets.forEach(({ tools, weights }, i) => {
    // yᵢ = Σₖ wₖ·v(tₖ), so XᵀY = Σₜ uₜᵀvₜ with uₜ = Σᵢ wᵢₜ·xᵢ.
    tools.forEach((t, k) => {
      const weight = weights[k] as number;
      let u = sums.get(t);
      if (!u) {
        u = new Float64Array(d);
        sums.set(t, u);
      }
      for (let j = 0; j < d; j++) u[j] = (u[j] as number) + weight * (x[i * d + j] as number);
    });
  });
  const used = sums.size;
  const ut = new Float64Array(d * used);
  const vt = new Float64Array(d * used);
  let column = 0;
  for (const [t, u] of sums) {
    for (let j = 0; j < d; j++) {
      ut[j * used + column] = u[j] as number;
      vt[j * used + column] = tools64[t * d + j] as number;
    }
    column++;
  }
  // b = XᵀY − XᵀX (XᵀY = UVᵀ, one tiled product), then g = XᵀX + λI.
  const b = await rowProducts(ut, d, vt, d, used, pace);
  for (let i = 0; i < d * d; i++) b[i] = (b[i] as number) - (g[i] as number);
  for (let r = 0; r < d; r++) g[r * d + r] = (g[r * d + r] as number) + lambda;
  await cholesky(g, d, pace);
  return {
    delta: b,
    factor: g,
    heldOut: async (groups, pace) => {
      // W = X_S G⁻¹ for the held-out rows S (G is symmetric: one solve with Xₛᵀ as its right-hand
      // sides), then ẑₛ = W·B and Hₐᵦ = xₐ·wᵦ.
      const { unique, index, positions } = scoredRows(groups);
      const s = unique.length;
      const w = gatherRows(x, unique, d);
      await solveRows(g, d, w, s, pace);
      const fittedUnique = await rowProducts(w, s, transpose(b, d, d), d, d, pace);
      const hat = (p: number, q: number) => dot(x, p, w, index.get(q) as number, d);
      return heldOutFrom(z, d, groups, gatherRows(fittedUnique, positions, d), hat, pace);
    },
  };
}

/**
 * Each distinct row of the held-out groups once (`unique`), where each sits there (`index`), and,
 * for the groups' rows in order, their place in `unique` (`positions`): the solves run once per
 * distinct row, the scoring once per group row.
 */
function scoredRows(groups: readonly (readonly number[])[]) {
  const rows = groups.flat();
  const unique = [...new Set(rows)];
  const index = new Map(unique.map((row, i) => [row, i]));
  return { unique, index, positions: rows.map((row) => index.get(row) as number) };
}

/** The rows of a row-major matrix (`d` values each) in the given order, as one matrix. */
function gatherRows(m: Float64Array, rows: readonly number[], d: number): Float64Array {
  const out = new Float64Array(rows.length * d);
  rows.forEach((row, r) => {
    out.set(m.subarray(row * d, row * d + d), r * d);
  });
  return out;
}

/** max(Good–Turing share of once-used tools' examples, share of tools no example used). */
function unseenShare(examples: readonly ProjectionExample[], toolCount: number): number {
  const uses = new Map<number, number>();
  for (const example of examples)
    for (const t of new Set(example.tools)) if (t >= 0 && t < toolCount) uses.set(t, (uses.get(t) ?? 0) + 1);
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

// ‖Σₖ weightsₖ · row rowsₖ‖ (weights 1 when absent); Infinity for a zero sum, so 1 / it is 0.
function sumNorm(matrix: Float64Array, rows: readonly number[], d: number, weights?: readonly number[]): number {
  let norm = 0;
  for (let j = 0; j < d; j++) {
    let sum = 0;
    rows.forEach((row, k) => {
      sum += (weights ? (weights[k] as number) : 1) * (matrix[row * d + j] as number);
    });
    norm += sum * sum;
  }
  return norm > 0 ? Math.sqrt(norm) : Infinity;
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
