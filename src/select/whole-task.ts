/**
 * Whole-task selection for HybridSelector, loaded with the first selection that uses it: the
 * tool links of a registry list (inferred once, with the tools' vectors, plus declared ones),
 * a selection's prerequisites, and the lift learned pairs give a selected tool's partners.
 */

import type { LearnedStore } from '../learn/learned-store.js';
import { mergeOptions } from '../options.js';
import { topK } from '../rank/top-k.js';
import { nameRecord } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolNeedsOf } from '../registry/tool-needs.js';
import { withKindLinks } from './kind-links.js';
import { intentClauses } from './multi-intent.js';
import { partAnchorOrder, partBudget } from './part-anchors.js';
import type { ToolReason } from './selector.js';
import type { Prerequisites, ToolLinkOptions, ToolLinks, ToolVectors } from './tool-links.js';
import { inferToolLinks, prerequisitesFor } from './tool-links.js';

/**
 * Which picks have their links followed, by default. Five within 0.2 rather than three within
 * 0.15: a budget the first picks leave unspent (their lookups already picked) goes to the next
 * ones ("Share the postmortem doc in #eng": three incident tools, then share_document, whose
 * search_documents was left out).
 */
export const ANCHOR_DEFAULTS = { count: 5, margin: 0.2 } as const;
/** Which picks have their learned partners lifted (tuned with learning, docs/tuning-learn.md). */
const PARTNER_ANCHORS = { count: 3, margin: 0.15 } as const;

/** Where a hybrid's links come from: its options, its per-list cache, its tools' vectors. */
export interface LinkSource {
  readonly options: ToolLinkOptions & { budget: number };
  readonly cache: WeakMap<readonly ToolSchema[], Promise<ToolLinks>>;
  readonly dense: {
    toolVectors(all: readonly ToolSchema[], options: { signal?: AbortSignal }): Promise<ToolVectors | undefined>;
    /** Embeds texts against the tools (kind links); without it links are lexical and by tool vectors only. */
    scoreQueries?(
      texts: readonly string[],
      all: readonly ToolSchema[],
      options: { signal?: AbortSignal },
    ): Promise<{ ok: true; scores: readonly Float32Array[] } | { ok: false }>;
  };
}

/**
 * The links of a registry list, computed once per list with the tools' vectors (a failed
 * computation is dropped from the cache, so a later turn retries).
 *
 * @example
 * const { links } = await linksFor(source, registry.schemas(), undefined)
 */
export function linksFor(
  source: LinkSource,
  all: readonly ToolSchema[],
  signal: AbortSignal | undefined,
): Promise<ToolLinks> {
  let links = source.cache.get(all);
  if (!links) {
    links = source.dense
      .toolVectors(all, signal ? { signal } : {})
      .then((vectors) => inferToolLinks(all, { ...linkInput(source, all), ...(vectors ? { vectors } : {}) }))
      // Required handles no tool's words link to are served by the nearest finder by meaning.
      .then((links) => {
        const score = source.dense.scoreQueries?.bind(source.dense);
        if (source.options.infer === false || !score) return links;
        return withKindLinks(all, links, (texts) => score(texts, all, signal ? { signal } : {}));
      });
    source.cache.set(all, links);
    links.catch(() => source.cache.delete(all));
  }
  return links;
}

/** Declared links: the list's own (registration, `withToolNeeds`), then the selector's option over them. */
function linkInput(
  source: LinkSource,
  all: readonly ToolSchema[],
): { declared?: Readonly<Record<string, readonly string[]>>; infer?: boolean } {
  const fromList = toolNeedsOf(all);
  const fromOption = source.options.declared;
  const declared =
    fromList || fromOption ? Object.assign(nameRecord<readonly string[]>(), fromList, fromOption) : undefined;
  return { ...(declared ? { declared } : {}), ...(source.options.infer === false ? { infer: false } : {}) };
}

/**
 * A selection's prerequisites: the best few picks (within the anchor margin of the top score)
 * and each clause's best tool have their links followed; providers already picked cost
 * nothing, others (and clause bests left out) take the budget. With the dense half down the
 * links are lexical only, for this turn. Warnings go out with the turn that computed them.
 *
 * @example
 * const needed = await prerequisites(source, { all, picked, fused, query, intents: [], denseOk: true, warnings, signal })
 */
export async function prerequisites(
  source: LinkSource,
  turn: {
    all: readonly ToolSchema[];
    picked: readonly number[];
    fused: Float64Array;
    query: string;
    intents: readonly number[];
    denseOk: boolean;
    warnings: string[];
    signal: AbortSignal | undefined;
  },
): Promise<Prerequisites | undefined> {
  const { all, picked, fused, query, intents, denseOk, warnings, signal } = turn;
  if (picked.length === 0) return undefined;
  const fresh = !source.cache.has(all);
  const links = denseOk ? await linksFor(source, all, signal) : inferToolLinks(all, linkInput(source, all));
  signal?.throwIfAborted();
  if (fresh || !denseOk) warnings.push(...links.warnings);
  if (links.needs.size === 0 && intents.length === 0) return undefined;
  const order = [...picked].sort((a, b) => (fused[b] as number) - (fused[a] as number));
  const top = fused[order[0] as number] as number;
  const { count, margin } = mergeOptions(ANCHOR_DEFAULTS, source.options.anchors);
  const anchors = order.filter((i, position) => position < count && (fused[i] as number) >= top - margin);
  // The request's parts, by the default clause splitter (read here, not passed in, so the
  // hybrid's core chunk stays as it was).
  const parts = intentClauses(query, { share: true }).clauses;
  return prerequisitesFor(links, {
    picked,
    anchors: partAnchorOrder(anchors, order, parts.length),
    intents,
    score: fused,
    prompt: query,
    budget: partBudget(source.options.budget, parts.length),
  });
}

/**
 * In place: the learned partners of the best few tools (tools the examples used together with
 * them) gain their lift. Returns the lifts by registry index, undefined when none.
 *
 * @example
 * const paired = liftPartners(all, fused, hybrid.dense)
 */
export function liftPartners(
  all: readonly ToolSchema[],
  fused: Float64Array,
  dense: { readonly learnedStore: LearnedStore | undefined },
): Map<number, number> | undefined {
  const store = dense.learnedStore;
  if (!store || store.size === 0) return undefined;
  const { count, margin } = PARTNER_ANCHORS;
  const best = topK(fused, count);
  if (best.length === 0) return undefined;
  const top = fused[best[0] as number] as number;
  const lifts = store.partners(
    best.filter((i) => (fused[i] as number) >= top - margin).map((i) => (all[i] as ToolSchema).name),
  );
  if (lifts.size === 0) return undefined;
  const position = positions(all);
  const out = new Map<number, number>();
  for (const [name, lift] of lifts) {
    const i = position.get(name);
    if (i === undefined) continue;
    fused[i] = (fused[i] as number) + lift;
    out.set(i, lift);
  }
  return out;
}

const positionMemo = new WeakMap<readonly ToolSchema[], Map<string, number>>();

/** Tool name → registry index, once per list. */
function positions(all: readonly ToolSchema[]): Map<string, number> {
  let position = positionMemo.get(all);
  if (!position) {
    position = new Map(all.map((tool, i) => [tool.name, i]));
    positionMemo.set(all, position);
  }
  return position;
}

/**
 * In place: the reasons of a selection's prerequisites (`neededBy`, and `prerequisite` when
 * beyond k), of clause bests advertised beyond k (`intent`) and of lifted partners
 * (`parts.paired`).
 *
 * @example
 * annotate(reasons, all, needed, paired)
 */
export function annotate(
  reasons: Record<string, ToolReason>,
  all: readonly ToolSchema[],
  needed: Prerequisites | undefined,
  paired: ReadonlyMap<number, number> | undefined,
): void {
  const mark = (i: number, change: (reason: ToolReason) => ToolReason) => {
    const name = (all[i] as ToolSchema).name;
    const reason = reasons[name];
    if (reason) reasons[name] = change(reason);
  };
  for (const [i, lift] of paired ?? []) mark(i, (reason) => ({ ...reason, parts: { ...reason.parts, paired: lift } }));
  if (!needed) return;
  for (const [i, neededBy] of needed.neededBy) mark(i, (reason) => ({ ...reason, neededBy }));
  for (const i of needed.extra)
    mark(i, (reason) => ({ ...reason, ...(needed.intents.has(i) ? { intent: true } : { prerequisite: true }) }));
}

/**
 * In place: what was learned, added to a ranking: the learned examples' votes and the lift
 * of the best tools' learned partners. Returns them with a copy of the ranking without them
 * (undefined when nothing is learned).
 *
 * @example
 * const learned = applyLearned(all, fused, queryVector, hybrid.dense)
 */
export function applyLearned(
  all: readonly ToolSchema[],
  fused: Float64Array,
  vector: Float32Array,
  dense: {
    readonly learnedStore: LearnedStore | undefined;
    learnedVotes(vector: Float32Array, all: readonly ToolSchema[]): Float64Array | undefined;
  },
):
  | {
      unlearned: Float64Array;
      vector: Float32Array;
      votes: Float64Array | undefined;
      paired: Map<number, number> | undefined;
    }
  | undefined {
  if (!dense.learnedStore || dense.learnedStore.size === 0) return undefined;
  const unlearned = Float64Array.from(fused);
  const votes = dense.learnedVotes(vector, all);
  if (votes) for (let i = 0; i < fused.length; i++) fused[i] = (fused[i] as number) + (votes[i] as number);
  return { unlearned, vector, votes, paired: liftPartners(all, fused, dense) };
}

/**
 * What was learned may reorder the ranking, but not evict a tool no example used: each such
 * tool the unlearned ranking put in the picks and the learned one left out takes back the slot
 * of the lowest-scored tool that only the examples' votes brought in. Learning can tell nothing
 * about a tool it never saw, so for a prompt that needs one (a prompt unlike any example) the
 * ranking's own choice stands. A tool a learned pair lifted keeps its slot: the guard distrusts
 * likeness to the examples, which is what votes are and a pair is not (a pair is a tool the
 * examples called together with one of this prompt's best picks, the lookup or the step that
 * comes with it, whatever the prompt's wording). Off unless `learned.protectUnseen`.
 *
 * @example
 * const ranked = keepUnseen(all, learnedPicks, applyLearned(all, scores, vector, hybrid.dense), scores, hybrid.dense)
 */
export function keepUnseen(
  all: readonly ToolSchema[],
  ranked: readonly number[],
  applied:
    | { unlearned: Float64Array; vector: Float32Array; paired?: ReadonlyMap<number, number> | undefined }
    | undefined,
  learned: Float64Array,
  dense: { readonly learnedStore: LearnedStore | undefined },
): readonly number[] {
  const store = dense.learnedStore;
  if (!applied || !store?.memory.options.protectUnseen || ranked.length === 0) return ranked;
  const { unlearned } = applied;
  const used = store.memory.usedTools;
  const before = topK(unlearned, ranked.length);
  const inRanked = new Set(ranked);
  const inBefore = new Set(before);
  const evicted = before.filter((i) => !inRanked.has(i) && !used.has((all[i] as ToolSchema).name));
  if (evicted.length === 0 || !store.memory.unlike(applied.vector)) return ranked;
  // The votes' newcomers (not a lifted partner), lowest learned score first.
  const newcomers = ranked
    .filter((i) => !inBefore.has(i) && !applied.paired?.has(i))
    .sort((a, b) => (learned[a] as number) - (learned[b] as number));
  const out = [...ranked];
  for (const tool of evicted) {
    const newcomer = newcomers.shift();
    if (newcomer === undefined) break;
    out[out.indexOf(newcomer)] = tool;
  }
  return out;
}
