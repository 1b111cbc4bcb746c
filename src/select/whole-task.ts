/**
 * Whole-task selection for HybridSelector, loaded with the first selection that uses it: the
 * tool links of a registry list (inferred once, with kind links by meaning, plus declared ones),
 * a selection's prerequisites, and the learned stages of the ranking (`learned`: the examples'
 * votes; `paired`: the lift learned pairs give the best tools' partners).
 */

import type { LearnedStore } from '../learn/learned-store.js';
import { mergeOptions } from '../options.js';
import { topK } from '../rank/top-k.js';
import { nameRecord } from '../registry/name-record.js';
import type { Derivation } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolNeedsOf } from '../registry/tool-needs.js';
import { english } from '../text/english.js';
import { type Lexicon, loadLexicon, skippedRules } from '../text/lexicon.js';
import { withKindLinks } from './kind-links.js';
import { intentClauses } from './multi-intent.js';
import { nearPicks } from './near-picks.js';
import { partAnchorOrder, partBudget } from './part-anchors.js';
import { combine, type Ranked, type RankTurn, type Stage } from './rank-stages.js';
import type { ToolReason } from './selector.js';
import type { Prerequisites, ToolLinkOptions, ToolLinks } from './tool-links.js';
import { inferToolLinks, prerequisitesFor } from './tool-links.js';

/**
 * Which picks have their links followed, by default. Five within 0.2 rather than three within
 * 0.15: a budget the first picks leave unspent (their lookups already picked) goes to the next
 * ones ("Share the postmortem doc in #eng": three incident tools, then share_document, whose
 * search_documents was left out). Within 0.3 rather than 0.2: the action a lookup serves often
 * ranks below the lookup itself, whose words the prompt repeats (blind aggregate 138 → 142 of
 * 202, docs/tuning-whole-task.md).
 */
export const ANCHOR_DEFAULTS = { count: 5, margin: 0.3 } as const;
/** Which picks have their learned partners lifted (tuned with learning, docs/tuning-learn.md). */
const PARTNER_ANCHORS = { count: 3, margin: 0.15 } as const;

/** Where a hybrid's links come from: its options, its per-list cache, its dense half, its lexicon. */
export interface LinkSource {
  readonly options: ToolLinkOptions & { budget: number };
  /** The words links are read with (default `english`). */
  readonly lexicon?: Lexicon | undefined;
  readonly cache: WeakMap<readonly ToolSchema[], Promise<ToolLinks>>;
  /** Links shipped with a vectors file and checked against their list: taken instead of inferring. */
  readonly shipped?: WeakMap<readonly ToolSchema[], ToolLinks>;
  /** Lists whose links were inferred, taken from `shipped`, and whose snapshot was seeded. */
  readonly counts?: { inferred: number; shipped: number; seeded: number };
  /** Per list, the first turn's look for shipped state and its warnings (`shippedState`). */
  readonly seeding?: WeakMap<readonly ToolSchema[], Promise<readonly string[]>>;
  readonly dense: {
    /** Embeds texts against the tools (kind links); without it links are lexical only. */
    scoreQueries?(
      texts: readonly string[],
      all: readonly ToolSchema[],
      options: { signal?: AbortSignal },
    ): Promise<{ ok: true; scores: readonly Float32Array[] } | { ok: false }>;
  };
}

/**
 * The links of a registry list, computed once per list, kind links with the dense half (a
 * failed computation is dropped from the cache, so a later turn retries).
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
  const shipped = links ? undefined : source.shipped?.get(all);
  if (shipped) {
    links = Promise.resolve(shipped);
    source.cache.set(all, links);
    if (source.counts) source.counts.shipped++;
  } else if (!links) {
    if (source.counts) source.counts.inferred++;
    const lexicon = loadLexicon(source.lexicon ?? english);
    const input = linkInput(source, all);
    links = lexicon
      .then((words) => inferToolLinks(all, { ...input, lexicon: words }))
      // Required handles no tool's words link to are served by the nearest finder by meaning.
      .then((links) => {
        const score = source.dense.scoreQueries?.bind(source.dense);
        if (source.options.infer === false || !score) return links;
        return withKindLinks(all, links, (texts) => score(texts, all, signal ? { signal } : {}), input.declared);
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
  const lexicon = await loadLexicon(source.lexicon ?? english);
  const fresh = !source.cache.has(all);
  const links = denseOk
    ? await linksFor(source, all, signal)
    : inferToolLinks(all, { ...linkInput(source, all), lexicon });
  signal?.throwIfAborted();
  if (fresh || !denseOk) warnings.push(...links.warnings);
  // A prompt the lexicon does not cover skips its rules (its parts are not split).
  const skipped = skippedRules(lexicon, query);
  if (skipped && !warnings.includes(skipped)) warnings.push(skipped);
  if (links.needs.size === 0 && intents.length === 0) return undefined;
  const order = [...picked].sort((a, b) => (fused[b] as number) - (fused[a] as number));
  const top = fused[order[0] as number] as number;
  const { count, margin } = mergeOptions(ANCHOR_DEFAULTS, source.options.anchors);
  const anchors = order.filter((i, position) => position < count && (fused[i] as number) >= top - margin);
  // The request's parts, by the default clause splitter (read here, not passed in, so the
  // hybrid's core chunk stays as it was).
  const parts = skipped ? [] : intentClauses(query, { share: true }, lexicon).clauses;
  const budget = partBudget(source.options.budget, parts.length);
  const anchorOrder = partAnchorOrder(anchors, order, parts.length);
  const needed = prerequisitesFor(links, { picked, anchors: anchorOrder, intents, budget });
  // A several-part prompt's unspent budget goes to the tools the ranking cannot tell from its k-th.
  const taken = new Set([...picked, ...needed.extra]);
  const near = nearPicks(fused, order, taken, parts.length, budget - needed.extra.length);
  return near.length === 0 ? needed : { ...needed, extra: [...needed.extra, ...near], near: new Set(near) };
}

/** Tool name → registry index. */
const positions: Derivation<ReadonlyMap<string, number>> = ({ tools }) =>
  new Map(tools.map((tool, i) => [tool.name, i]));

// Whether the prompt's learned stages run: the dense half ranked, something is learned, and the
// prompt is near an example (a prompt unlike every example ranks exactly as without learning).
function learnedStore(turn: RankTurn, text: number): LearnedStore | undefined {
  const store = turn.learning.learnedStore;
  return text === 0 && turn.vector && store && store.size > 0 && store.memory.near(turn.vector) ? store : undefined;
}

/**
 * The learned examples' votes for the prompt (see `EmbeddingSelector.learn`), reported where
 * positive. Present, with no votes, whenever something is learned: it marks a ranking that
 * learning may have changed (see {@link keepUnseen}).
 *
 * @example
 * rankText([...blend, learnedStage], snapshot, turn, 0)
 */
export const learnedStage: Stage = ({ snapshot, turn, text }) => {
  if (!learnedStore(turn, text)) return undefined;
  const votes = turn.learning.learnedVotes(turn.vector as Float32Array, snapshot.tools);
  return {
    name: 'learned',
    ...(votes ? { add: votes } : {}),
    part: (i) => (votes && (votes[i] as number) > 0 ? votes[i] : undefined),
  };
};

/**
 * The lift each used tool's usage prototype gives it (see `src/learn/usage-prototypes.ts`),
 * reported where positive. Learned evidence like the votes: what `keepUnseen` sets aside.
 *
 * @example
 * rankText([...blend, learnedStage, usageStage], snapshot, turn, 0)
 */
export const usageStage: Stage = ({ snapshot, turn, text }) => {
  const store = learnedStore(turn, text);
  const lifts = store?.usage(turn.vector as Float32Array, snapshot.tools);
  if (!lifts) return undefined;
  return { name: 'usage', add: lifts, part: (i) => ((lifts[i] as number) > 0 ? lifts[i] : undefined) };
};

/**
 * The lift of the learned partners of the best few tools so far (tools the examples used
 * together with them); reported for each lifted tool.
 *
 * @example
 * rankText([...blend, learnedStage, pairedStage], snapshot, turn, 0)
 */
export const pairedStage: Stage = ({ snapshot, turn, text, scores }) => {
  const store = learnedStore(turn, text);
  if (!store) return undefined;
  const { count, margin } = PARTNER_ANCHORS;
  const best = topK(scores, count);
  if (best.length === 0) return undefined;
  const top = scores[best[0] as number] as number;
  const lifts = store.partners(
    best.filter((i) => (scores[i] as number) >= top - margin).map((i) => (snapshot.tools[i] as ToolSchema).name),
  );
  if (lifts.size === 0) return undefined;
  const position = snapshot.get(positions);
  const add = new Float64Array(scores.length);
  const paired = new Map<number, number>();
  for (const [name, lift] of lifts) {
    const i = position.get(name);
    if (i === undefined) continue;
    add[i] = lift;
    paired.set(i, lift);
  }
  return { name: 'paired', add, part: (i) => paired.get(i) };
};

/**
 * In place: the reasons of a selection's prerequisites (`neededBy`, and `prerequisite` when
 * beyond k), of clause bests advertised beyond k (`intent`) and of near picks (`near`).
 *
 * @example
 * annotate(reasons, all, needed)
 */
export function annotate(
  reasons: Record<string, ToolReason>,
  all: readonly ToolSchema[],
  needed: Prerequisites | undefined,
): void {
  const mark = (i: number, change: (reason: ToolReason) => ToolReason) => {
    const name = (all[i] as ToolSchema).name;
    const reason = reasons[name];
    if (reason) reasons[name] = change(reason);
  };
  if (!needed) return;
  for (const [i, neededBy] of needed.neededBy) mark(i, (reason) => ({ ...reason, neededBy }));
  for (const i of needed.extra)
    mark(i, (reason) => ({
      ...reason,
      ...(needed.intents.has(i) ? { intent: true } : needed.near?.has(i) ? { near: true } : { prerequisite: true }),
    }));
}

/**
 * What was learned may reorder the ranking, but not evict a tool no example used: each such
 * tool the unlearned ranking (the same contributions less `learned` and `paired`) put in the
 * picks and the learned one left out takes back the slot of the lowest-scored tool that only
 * the examples' votes brought in. Learning can tell nothing about a tool it never saw, so for a
 * prompt that needs one (a prompt unlike any example) the ranking's own choice stands. A tool a
 * learned pair lifted keeps its slot: the guard distrusts likeness to the examples, which is
 * what votes are and a pair is not (a pair is a tool the examples called together with one of
 * this prompt's best picks, the lookup or the step that comes with it, whatever the prompt's
 * wording). Off unless `learned.protectUnseen`.
 *
 * @example
 * const ranked = keepUnseen(all, picks, rankTurn(stages, snapshot, turn), turn.vector, hybrid.dense)
 */
export function keepUnseen(
  all: readonly ToolSchema[],
  ranked: readonly number[],
  ranking: Ranked,
  vector: Float32Array | undefined,
  dense: { readonly learnedStore: LearnedStore | undefined },
): readonly number[] {
  const store = dense.learnedStore;
  const { score: learned, contributions } = ranking;
  const applied = contributions.some(({ name }) => name === 'learned');
  if (!applied || !vector || !store?.memory.options.protectUnseen || ranked.length === 0) return ranked;
  const unlearned = combine(
    all.length,
    contributions.filter(({ name }) => name !== 'learned' && name !== 'usage' && name !== 'paired'),
  );
  const paired = contributions.find(({ name }) => name === 'paired');
  const used = store.memory.usedTools;
  const before = topK(unlearned, ranked.length);
  const inRanked = new Set(ranked);
  const inBefore = new Set(before);
  const evicted = before.filter((i) => !inRanked.has(i) && !used.has((all[i] as ToolSchema).name));
  if (evicted.length === 0 || !store.memory.unlike(vector)) return ranked;
  // The votes' newcomers (not a lifted partner), lowest learned score first.
  const newcomers = ranked
    .filter((i) => !inBefore.has(i) && paired?.part?.(i) === undefined)
    .sort((a, b) => (learned[a] as number) - (learned[b] as number));
  const out = [...ranked];
  for (const tool of evicted) {
    const newcomer = newcomers.shift();
    if (newcomer === undefined) break;
    out[out.indexOf(newcomer)] = tool;
  }
  return out;
}
