/**
 * Links by meaning: a required handle that no tool's words link to (an `assignee_id` where the
 * only finder is `search_users`, a `doctorId` beside `findPractitioners`, a `rmaId` beside
 * `listReturns`) is served by the finder whose meaning is closest to the input's own text.
 * The lexical links of tool-links.ts match entity words, so they miss exactly where a registry
 * names the handle for a specific kind of thing and the finder for the general kind; the
 * embedder knows the kinds are near. A finder is read from the schema, not from its name: a tool
 * none of whose required inputs is a handle (it can be called with what a prompt gives). No
 * word table; each unlinked input's text is embedded once per registry list.
 */
import type { ToolSchema } from '../registry/schema.js';
import { splitName } from '../text/words.js';
import type { HandleInput, IndexedLink, ToolLinks } from './tool-links.js';
import { handleInputs } from './tool-links.js';
import { toolProperties } from './tool-properties.js';

/** A required handle of `consumer` with no link, and the text that says what it is. */
export interface UnlinkedInput {
  readonly consumer: number;
  readonly input: HandleInput;
  /** The parameter's name words, its description and the tool's name words. */
  readonly text: string;
}

/** How kind links are made (fitted on the dev registries; docs/tuning-whole-task.md). */
export const KIND_DEFAULTS = {
  /** Most inputs embedded per registry list (a huge catalogue must not cost more). */
  maxInputs: 256,
  /** Least cosine between the input's text and a finder. */
  minCosine: 0.3,
  /** Finders kept per input: those within this cosine of the best one. */
  margin: 0.05,
  /** Providers kept per input. */
  maxProviders: 2,
  /** Link strength, against the lexical links' evidence (0.9 and up): weaker than any. */
  strength: 0.5,
} as const;

/**
 * The required handles the links leave unserved, with a text to embed for each (declared
 * tools keep their declaration). At most `limit`, registry order.
 *
 * @example
 * unlinkedInputs(all, inferToolLinks(all))
 * // [{ consumer: 7, input: { parameter: 'doctorId', entity: ['doctor'], … }, text: 'doctor id: … (book appointment)' }]
 */
export function unlinkedInputs(
  all: readonly ToolSchema[],
  links: ToolLinks,
  limit: number = KIND_DEFAULTS.maxInputs,
  declared?: Readonly<Record<string, readonly string[]>>,
): UnlinkedInput[] {
  const out: UnlinkedInput[] = [];
  for (let consumer = 0; consumer < all.length && out.length < limit; consumer++) {
    const tool = all[consumer] as ToolSchema;
    const known = links.needs.get(consumer) ?? [];
    // A declaration, even an empty one ("needs nothing"), replaces every inference for its tool.
    if (declared && Object.hasOwn(declared, tool.name)) continue;
    if (known.some((link) => link.link.source === 'declared')) continue;
    const served = new Set(known.map((link) => link.input?.parameter));
    const props = toolProperties(tool) ?? {};
    for (const input of handleInputs(tool)) {
      if (input.optional || served.has(input.parameter) || out.length >= limit) continue;
      const schema = props[input.parameter] as { description?: unknown } | undefined;
      const about = typeof schema?.description === 'string' ? schema.description.slice(0, 300) : '';
      const text = `${splitName(input.parameter).join(' ')}: ${about} (${splitName(String(tool.name)).join(' ')})`;
      out.push({ consumer, input, text });
    }
  }
  return out;
}

/**
 * Whether each tool is a finder: none of its required inputs is a handle, so a prompt's own
 * words are enough to call it.
 *
 * @example
 * finders(all) // [true, false, …]
 */
export function finders(all: readonly ToolSchema[]): boolean[] {
  return all.map((tool) => handleInputs(tool).every((input) => input.optional === true));
}

/**
 * The links with each unlinked input served by its nearest finders: `scores[n]` is input n's
 * cosine with every tool. An input whose best finder is under the least cosine stays unlinked.
 *
 * @example
 * const scores = (await dense.scoreQueries(inputs.map((i) => i.text), all)).scores
 * const more = addKindLinks(all, links, inputs, scores)
 */
export function addKindLinks(
  all: readonly ToolSchema[],
  links: ToolLinks,
  inputs: readonly UnlinkedInput[],
  scores: readonly ArrayLike<number>[],
  isFinder: readonly boolean[] = finders(all),
): ToolLinks {
  const { minCosine, margin, maxProviders, strength } = KIND_DEFAULTS;
  const needs = new Map(links.needs);
  const added: IndexedLink[] = [];
  inputs.forEach(({ consumer, input }, n) => {
    const cosines = scores[n];
    if (!cosines) return;
    const ranked: number[] = [];
    for (let i = 0; i < all.length; i++)
      if (i !== consumer && isFinder[i] && (cosines[i] as number) >= minCosine) ranked.push(i);
    if (ranked.length === 0) return;
    ranked.sort((a, b) => (cosines[b] as number) - (cosines[a] as number) || a - b);
    const best = cosines[ranked[0] as number] as number;
    const providers = ranked.filter((i) => (cosines[i] as number) >= best - margin).slice(0, maxProviders);
    const link: IndexedLink = {
      link: {
        tool: (all[consumer] as ToolSchema).name,
        parameter: input.parameter,
        entity: input.words.join(' '),
        providers: providers.map((i) => (all[i] as ToolSchema).name),
        source: 'inferred',
      },
      providers,
      strength: providers.map(() => strength),
      input,
    };
    needs.set(consumer, [...(needs.get(consumer) ?? []), link]);
    added.push(link);
  });
  if (added.length === 0) return links;
  const list = [...needs.keys()]
    .sort((a, b) => a - b)
    .flatMap((consumer) => (needs.get(consumer) ?? []).map((item) => item.link));
  return { links: list, warnings: links.warnings, needs };
}

/**
 * The links plus kind links, embedding the unlinked inputs' texts with `score` (the dense
 * half's `scoreQueries`); the links unchanged when nothing is unlinked or the embedder fails.
 *
 * @example
 * const links = await withKindLinks(all, inferToolLinks(all, { vectors }), (texts) => dense.scoreQueries(texts, all))
 */
export async function withKindLinks(
  all: readonly ToolSchema[],
  links: ToolLinks,
  score: (texts: readonly string[]) => Promise<{ ok: true; scores: readonly Float32Array[] } | { ok: false }>,
  declared?: Readonly<Record<string, readonly string[]>>,
): Promise<ToolLinks> {
  const inputs = unlinkedInputs(all, links, KIND_DEFAULTS.maxInputs, declared);
  if (inputs.length === 0) return links;
  const scored = await score(inputs.map((input) => input.text));
  return scored.ok ? addKindLinks(all, links, inputs, scored.scores) : links;
}
