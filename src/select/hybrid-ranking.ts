/**
 * The hybrid's ranking, loaded with its first selection (not needed to import loopctl): the
 * stage list of the prompt and of its clauses, and the lexical evidence they read.
 */
import type { VectorsFile } from '../embed/vectors-file.js';
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { denseStage, hybridLexicon, lexicalEvidence, lexicalStage, nameStage } from './blend-stages.js';
import type { StateEmbedder } from './hybrid-state.js';
import type * as MultiIntent from './multi-intent.js';
import type { Contribution, Stage } from './rank-stages.js';
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
