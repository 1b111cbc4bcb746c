/**
 * The hybrid's ranking, loaded with its first selection (not needed to import loopctl): the
 * stage list of the prompt and of its clauses, and the lexical evidence they read.
 */
import type { VectorsFile } from '../embed/vectors-file.js';
import { nameRecord } from '../registry/name-record.js';
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import {
  denseStage,
  type HybridLexicon,
  hybridLexicon,
  lexicalEvidence,
  lexicalStage,
  nameStage,
} from './blend-stages.js';
import type { StateEmbedder } from './hybrid-state.js';
import type * as MultiIntent from './multi-intent.js';
import { type Contribution, partsOf, type Stage } from './rank-stages.js';
import type { ToolReason } from './selector.js';
import type * as WholeTask from './whole-task.js';

export { partsOf, rankTurn } from './rank-stages.js';
export { hybridLexicon, lexicalEvidence };

/**
 * The hybrid's ranking, stage by stage, for the prompt and for each of its clauses. Each stage
 * adds its named contribution to the score the ones before it made (see `rank-stages.ts`); a
 * stage whose module is not loaded (multi-intent or whole-task off) is skipped.
 *
 * @example
 * const ranked = rankTurn(hybridStages(await import('./multi-intent.js'), undefined), snapshot, turn)
 */
export function hybridStages(
  intent: typeof MultiIntent | undefined,
  task: typeof WholeTask | undefined,
): { prompt: Stage[]; clause: Stage[] } {
  const prompt = [
    lexicalStage,
    denseStage,
    nameStage,
    intent?.parameterStage,
    task?.learnedStage,
    task?.usageStage,
    task?.pairedStage,
  ];
  return { prompt: prompt.filter(isStage), clause: [lexicalStage, denseStage, nameStage] };
}

// The order reasons list their parts in: paired after learned, as ever, keeping the JSON a client
// reads unchanged. A part not named here follows in stage order.
const PART_ORDER = ['lexical', 'dense', 'learned', 'usage', 'paired'];

/**
 * The contributions in the order `ToolReason.parts` lists them (see `partsOf`).
 *
 * @example
 * const reported = reportOrder(ranked.contributions)
 * partsOf(reported, 3) // { lexical, dense, learned, clause, paired }
 */
export function reportOrder(contributions: readonly Contribution[]): Contribution[] {
  const rank = ({ name }: Contribution) => {
    const at = PART_ORDER.indexOf(name);
    return at < 0 ? PART_ORDER.length : at;
  };
  return [...contributions].sort((a, b) => rank(a) - rank(b));
}

/**
 * The tools a turn advertises, in registry order, each with its reason: the blended score, the
 * prompt's words its document holds, the parts in report order, and `core` for a core tool that
 * was neither picked nor needed.
 *
 * @example
 * const { tools, reasons } = reportPicks({ all, core, picked: [3], extra: [], fused, words, lexicon, contributions })
 */
export function reportPicks(turn: {
  readonly all: readonly ToolSchema[];
  readonly core: ReadonlySet<string>;
  readonly picked: readonly number[];
  readonly extra: readonly number[];
  readonly fused: Float64Array;
  readonly words: readonly string[];
  readonly lexicon: HybridLexicon;
  readonly contributions: readonly Contribution[];
}): { tools: ToolSchema[]; reasons: Record<string, ToolReason> } {
  const { all, core, fused, words, lexicon } = turn;
  const reported = reportOrder(turn.contributions);
  const reasons = nameRecord<ToolReason>();
  const chosen = new Set(turn.picked);
  const extra = new Set(turn.extra);
  const tools: ToolSchema[] = [];
  // Without core tools only the picks are visited (registry order), not every tool: 1.7 ms of a
  // search at 10,000 tools.
  const visit = core.size > 0 ? all.keys() : [...new Set([...chosen, ...extra])].sort((a, b) => a - b);
  for (const i of visit) {
    const tool = all[i] as ToolSchema;
    if (!chosen.has(i) && !extra.has(i) && !core.has(tool.name)) continue;
    tools.push(tool);
    const matched = words.filter((word) => lexicon.document(i).has(word));
    reasons[tool.name] = {
      score: fused[i] as number,
      ...(matched.length ? { matched } : {}),
      parts: partsOf(reported, i),
      ...(chosen.has(i) || extra.has(i) ? {} : { core: true }),
    };
  }
  return { tools, reasons };
}

function isStage(stage: Stage | undefined): stage is Stage {
  return stage !== undefined;
}

/**
 * Seed a list's snapshot and links from the derived state its vectors file ships (once per list;
 * `hybrid-state.ts` loads only when the file has sections). The warnings come back on the
 * list's first call only: none when the state was used or there is none, one saying why it was
 * ignored.
 *
 * @example
 * const warnings = await shippedState(selector.dense, linkSource, all, signal)
 */
export async function shippedState(
  dense: {
    readonly embedder: StateEmbedder;
    vectorsFile(signal?: AbortSignal): Promise<VectorsFile | undefined>;
  },
  source: WholeTask.LinkSource,
  all: readonly ToolSchema[],
  signal: AbortSignal | undefined,
): Promise<readonly string[]> {
  const lists = source.seeding;
  if (!lists) return [];
  let seeding = lists.get(all);
  const first = !seeding;
  if (!seeding) {
    seeding = dense.vectorsFile(signal).then(async (file) => {
      if (!file || file.sections.size === 0) return [];
      const { seedFromVectorsFile } = await import('./hybrid-state.js');
      const { seeded, warnings } = await seedFromVectorsFile(file, all, registrySnapshot(all), {
        embedder: dense.embedder,
        ...(source.shipped ? { links: source.shipped } : {}),
      });
      if (seeded && source.counts) source.counts.seeded++;
      return warnings;
    });
    lists.set(all, seeding);
    seeding.catch(() => lists.delete(all));
  }
  const warnings = await seeding;
  return first ? warnings : [];
}
