/**
 * Link inference: every link of a registry list, inferred from the tools' names, parameters and
 * descriptions (each handle input scored against its few candidate providers) plus the declared
 * ones. Bounded work: each input scores only the tools that share a word with it.
 */
import type { ToolSchema } from '../registry/schema.js';
import { englishLoaded } from '../text/english.js';
import type { LoadedLexicon } from '../text/lexicon.js';
import { declaredCycles, declaredLinks } from './declared-links.js';
import type { HandleInput } from './handle-inputs.js';
import { LINK_DEFAULTS } from './link-defaults.js';
import type { IndexedLink, ToolLinkOptions, ToolLinks } from './link-types.js';
import { linkWords } from './link-words.js';
import { type CandidateFinder, providerCandidates } from './provider-candidates.js';
import { providerEvidence, type ToolWords, toolWords } from './provider-evidence.js';

/** Candidates at which an input counts as crowded (a warning says how many were left out). */
const CROWDED = 16;

/**
 * Every link of a registry list: inferred (unless `infer: false`) and declared. Bounded work:
 * each input scores only the tools that share a word with it, and keeps its best few.
 *
 * @example
 * const { links } = inferToolLinks(registry.schemas())
 * // [{ tool: 'assign_task', parameter: 'task_id', entity: 'task', providers: ['search_tasks'], source: 'inferred' }, …]
 */
export function inferToolLinks(
  all: readonly ToolSchema[],
  options: {
    declared?: ToolLinkOptions['declared'];
    infer?: boolean;
    lexicon?: LoadedLexicon;
  } = {},
): ToolLinks {
  const warnings: string[] = [];
  const position = new Map<string, number>();
  all.forEach((tool, i) => {
    if (tool && typeof tool.name === 'string' && !position.has(tool.name)) position.set(tool.name, i);
  });
  const declared = declaredLinks(options.declared, position, warnings);
  const needs = new Map<number, IndexedLink[]>();
  if (options.infer !== false) {
    const lexicon = linkWords(options.lexicon ?? englishLoaded);
    const words = all.map((tool) => toolWords(tool, lexicon));
    const candidatesOf = providerCandidates(all, words, position);
    const scorer: Scorer = { all, words, candidatesOf };
    const crowd = { count: 0, example: '' };
    all.forEach((_, consumer) => {
      if (declared.has(consumer)) return;
      const links: IndexedLink[] = [];
      for (const [n, input] of (words[consumer]?.inputs ?? []).entries()) {
        const link = inputLink(scorer, consumer, n, input, crowd);
        if (link) links.push(link);
      }
      if (links.length > 0) needs.set(consumer, links);
    });
    if (crowd.count > 0) {
      warnings.push(
        `tool links: ${crowd.count} input${crowd.count === 1 ? ' has' : 's have'} ${CROWDED} or more candidate providers (e.g. ${crowd.example}); ` +
          `only the best ${LINK_DEFAULTS.maxProviders} of each are kept`,
      );
    }
  }
  for (const [consumer, link] of declared) if (link.providers.length > 0) needs.set(consumer, [link]);
  warnings.push(...declaredCycles(declared, all));

  const links = [...needs.keys()]
    .sort((a, b) => a - b)
    .flatMap((consumer) => (needs.get(consumer) ?? []).map((item) => item.link));
  return { links, warnings, needs };
}

interface Scorer {
  readonly all: readonly ToolSchema[];
  readonly words: readonly ToolWords[];
  readonly candidatesOf: CandidateFinder;
}

// One input's link: its candidates scored by lexical evidence, the best few kept; undefined when none has enough evidence.
function inputLink(
  scorer: Scorer,
  consumer: number,
  n: number,
  input: HandleInput,
  crowd: { count: number; example: string },
): IndexedLink | undefined {
  const { all, words } = scorer;
  const tool = all[consumer] as ToolSchema;
  const { candidates, found } = scorer.candidatesOf(consumer, n, input);
  const scored: { index: number; score: number }[] = [];
  for (const candidate of candidates) {
    const score = providerEvidence(input, words[candidate] as ToolWords, found(candidate));
    if (score >= LINK_DEFAULTS.minEvidence) scored.push({ index: candidate, score });
  }
  if (scored.length === 0) return undefined;
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  if (scored.length >= CROWDED) {
    crowd.count++;
    if (!crowd.example) crowd.example = `${tool.name}.${input.parameter}: ${scored.length}`;
  }
  const best = (scored[0] as { score: number }).score;
  const kept = scored
    .filter((item) => item.score >= LINK_DEFAULTS.relative * best)
    .slice(0, LINK_DEFAULTS.maxProviders);
  return {
    link: {
      tool: tool.name,
      parameter: input.parameter,
      entity: input.words.join(' '),
      providers: kept.map((item) => (all[item.index] as ToolSchema).name),
      source: 'inferred',
      ...(input.optional ? { optional: true as const } : {}),
    },
    providers: kept.map((item) => item.index),
    strength: kept.map((item) => item.score),
    input,
  };
}
