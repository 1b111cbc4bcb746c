/**
 * Tool links: the tools a tool needs first. A tool whose required input is a handle a prompt
 * rarely spells out (`task_id`, `email_id`, a `ticker`, "the ID of the event") can only be
 * called after a tool that finds, lists or searches that entity, so a selection that holds the
 * one should hold the other. Links are inferred once per registry list (generation) from tool
 * names, parameter names and descriptions and tool descriptions (lexical evidence), ranked with
 * the tools' own embedding vectors when there are some (dense evidence); a user may declare
 * them instead. No model is asked. Loaded with the first selection that uses them.
 */
import type { ToolSchema } from '../registry/schema.js';
import { stem } from '../text/stem.js';
import { rawWords, STOPWORDS, splitName } from '../text/words.js';
import { toolProperties } from './tool-properties.js';

/** A required input of a tool that only another tool produces. */
export interface HandleInput {
  /** The parameter's name. */
  readonly parameter: string;
  /** What the handle identifies (stemmed words, e.g. `['task']`). */
  readonly entity: readonly string[];
  /** The handle's own words (`id`, `ticker`, `symbol`, `token`…). */
  readonly handle: readonly string[];
  /** The entity as written (for display). */
  readonly words: readonly string[];
  /**
   * The parameter is optional: it counts only when the prompt names what it is about
   * ("… in the Website project" for `project_id`), never by itself.
   */
  readonly optional?: boolean;
  /** The parameter's own name words, raw (what a prompt would say to ask for it). */
  readonly mentions: readonly string[];
}

/** One link: `tool` needs one of `providers` first (best first). */
export interface ToolLink {
  /** The tool that needs the input. */
  readonly tool: string;
  /** The required parameter the providers produce (absent for a declared link). */
  readonly parameter?: string;
  /** What the input identifies, in words (absent for a declared link). */
  readonly entity?: string;
  /** Tools that produce it, best first. */
  readonly providers: readonly string[];
  /** Inferred from the registry, or declared by the user. */
  readonly source: 'inferred' | 'declared';
  /** The input is optional: the link is followed only when the prompt names what it is about. */
  readonly optional?: true;
}

/** A link with registry indices, for selection. */
export interface IndexedLink {
  readonly link: ToolLink;
  /** Indices of the providers in the registry list, best first. */
  readonly providers: readonly number[];
  /** Evidence for each provider (higher is stronger). */
  readonly strength: readonly number[];
  /** The input the link serves (inferred links only): the prompt may supply it. */
  readonly input?: HandleInput;
}

/** Every link of one registry list. */
export interface ToolLinks {
  /** Every link, registry order of the tools that need them. */
  readonly links: readonly ToolLink[];
  /** What was ignored, and why (unknown declared tools, cycles, crowded inputs). */
  readonly warnings: readonly string[];
  /** Links by the registry index of the tool needing them. */
  readonly needs: ReadonlyMap<number, readonly IndexedLink[]>;
}

/** How links are made and used. Every field has a default. */
export interface ToolLinkOptions {
  /**
   * Links the user declares: tool name → the tools it needs first, best first. An entry
   * replaces whatever is inferred for that tool, so `[]` says "needs nothing" and corrects a
   * wrong inference. Unknown names are ignored with a warning.
   */
  declared?: Readonly<Record<string, readonly string[]>>;
  /** Infer links from the registry (default true). */
  infer?: boolean;
  /**
   * Prerequisite tools a turn may advertise beyond k (default 2). A prerequisite that is
   * already among the k picks costs nothing.
   */
  budget?: number;
  /**
   * Which picks have their links followed: the best `count`, within `margin` of the top score
   * (each clause's best tool too). Defaults `{ count: 5, margin: 0.2 }`.
   */
  anchors?: { count?: number; margin?: number };
}

/** The defaults (chosen on the dev splits and the project's dev registry; see docs/tuning-whole-task.md). */
export const LINK_DEFAULTS = {
  budget: 2,
  /** Providers kept per input. */
  maxProviders: 3,
  /** A provider is kept when its evidence is at least this share of the best one's. */
  relative: 0.75,
  /** Least lexical evidence for a provider. */
  minEvidence: 0.9,
  /** Weight of the tools' cosine in a provider's evidence. */
  denseWeight: 0.5,
  /** How deep the walk goes: a prerequisite's own prerequisites, and no further. */
  depth: 2,
} as const;

/** Dense evidence: unit tool vectors, row-major, registry order. */
export interface ToolVectors {
  readonly matrix: Float32Array;
  readonly dimensions: number;
}

// Words that make a parameter a handle another tool produces.
const HANDLE_WORDS = new Set([
  'id',
  'ids',
  'uuid',
  'guid',
  'identifier',
  'identifiers',
  'ticker',
  'symbol',
  'token',
  'handle',
  'ref',
  'refs',
  'reference',
  'references',
  'sku',
  'skus',
]);
// Name words of tools that find what exists (strong) or fetch one thing (weak).
// (Stemmed, as name words are compared stemmed.)
const FINDERS = new Set(
  ['search', 'find', 'list', 'lookup', 'look', 'query', 'browse', 'discover', 'all', 'history', 'recent', 'locate'].map(
    stem,
  ),
);
const WEAK_FINDERS = new Set(['get', 'fetch', 'retrieve', 'view', 'show'].map(stem));
// Name words that are actions or glue, never the entity a tool is about.
const ACTIONS = new Set([
  ...FINDERS,
  ...WEAK_FINDERS,
  'read',
  'authenticate',
  'login',
  'upload',
  'register',
  'set',
  'create',
  'update',
  'delete',
  'remove',
  'add',
  'send',
  'reply',
  'forward',
  'archive',
  'cancel',
  'write',
  'edit',
  'move',
  'assign',
  'reassign',
  'complete',
  'close',
  'open',
  'start',
  'stop',
  'restart',
  'deploy',
  'rollback',
  'roll',
  'back',
  'acknowledge',
  'escalate',
  'share',
  'post',
  'submit',
  'download',
  'mark',
  'log',
  'respond',
  'accept',
  'decline',
  'make',
  'change',
  'modify',
  'rename',
  'copy',
  'check',
  'run',
  'execute',
  'apply',
  'put',
  'patch',
  'book',
  'buy',
  'sell',
  'place',
  'to',
  'by',
  'from',
  'for',
  'of',
  'the',
  'a',
  'an',
  'my',
  'new',
  'on',
  'in',
  'at',
  'with',
  'and',
  'or',
  'is',
  'do',
]);
// Description words that say an input is a handle.
const HANDLE_TEXT = /\b(?:id|ids|identifier|identifiers|uuid|guid|ticker|symbol|sku|reference)\b/i;
// A description pointing at another tool by an identifier-like name: "returned by list_refs", "see getSession".
const POINTER =
  /\b(?:from|by|see|via|using|calling|call)\s+`?(?:[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)/;
// Words skipped between a handle word and the entity it names ("ID of the task", "symbol that uniquely identifies the stock").
const GLUE = new Set([
  'of',
  'the',
  'a',
  'an',
  'for',
  'that',
  'which',
  'uniquely',
  'identifies',
  'identify',
  'to',
  'this',
  'unique',
  'existing',
  'given',
]);
// Adjectives that are not the entity ("the new assignee", "unique identifier").
const GENERIC = new Set([
  'unique',
  'new',
  'existing',
  'given',
  'current',
  'currently',
  'target',
  'source',
  'specific',
  'primary',
  'internal',
  'external',
  'numeric',
  'string',
  'integer',
  'number',
  'name',
  'value',
  'type',
  'code',
  'data',
  'info',
  'information',
  'detail',
  'details',
  'text',
  'object',
  'item',
  'entry',
  'record',
  'optional',
  'required',
  'default',
  'valid',
]);

/** Most tokens read from one description (a huge description must not cost more). */
const MAX_DESCRIPTION_WORDS = 400;
/** Most declared providers kept for one tool. */
const MAX_DECLARED = 8;
/** Candidates at which an input counts as crowded (a warning says how many were left out). */
const CROWDED = 16;

function identifierWords(name: string): string[] {
  return splitName(name).flatMap((part) => rawWords(part));
}

function headWords(text: unknown): string[] {
  if (typeof text !== 'string' || text === '') return [];
  const words = rawWords(text.length > 4000 ? text.slice(0, 4000) : text);
  return words.length > MAX_DESCRIPTION_WORDS ? words.slice(0, MAX_DESCRIPTION_WORDS) : words;
}

function isEntityWord(word: string): boolean {
  return (
    word.length >= 3 &&
    !STOPWORDS.has(word) &&
    !ACTIONS.has(word) &&
    !HANDLE_WORDS.has(word) &&
    !GENERIC.has(word) &&
    !/^\d+$/.test(word)
  );
}

/** `doc` and `document`, `task` and `tasks` are one entity. */
function sameEntity(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.length - short.length >= 2 && long.startsWith(short);
}

function requiredNames(tool: ToolSchema): string[] {
  const required = (tool?.parameters as Record<string, unknown> | undefined)?.required;
  return Array.isArray(required)
    ? required.filter((name): name is string => typeof name === 'string').slice(0, 64)
    : [];
}

function descriptionOf(schema: unknown): string {
  const text = schema && typeof schema === 'object' ? (schema as Record<string, unknown>).description : undefined;
  return typeof text === 'string' ? text : '';
}

/**
 * The required inputs of a tool that are handles another tool produces, with what each
 * identifies: `task_id` → task; `id` of `update_event` → event; `ticker` described as "ticker
 * symbol of the stock" → stock; "User ID of the agent" → user, agent.
 *
 * @example
 * handleInputs({ name: 'assign_task', description: 'Assign a task.', parameters: {
 *   type: 'object', properties: { task_id: { type: 'string' }, assignee: { type: 'string' } },
 *   required: ['task_id', 'assignee'] } })
 * // [{ parameter: 'task_id', entity: ['task'], handle: ['id'] }]
 */
export function handleInputs(tool: ToolSchema): HandleInput[] {
  const props = toolProperties(tool);
  if (!props) return [];
  const required = new Set(requiredNames(tool));
  const out: HandleInput[] = [];
  let seen = 0;
  for (const parameter in props) {
    if (!Object.hasOwn(props, parameter)) continue;
    if (++seen > 64) break;
    const nameWords = identifierWords(parameter);
    const text = descriptionOf(props[parameter]);
    const description = headWords(text);
    const namedHandle = nameWords.some((word) => HANDLE_WORDS.has(word));
    // "(returned by list_refs)", "from getSession": the description points at the producing tool.
    const pointer = POINTER.test(text);
    if (!namedHandle && !pointer && !HANDLE_TEXT.test(text)) continue;
    const handle = [...new Set([...nameWords, ...description].filter((word) => HANDLE_WORDS.has(word)))];
    if (handle.length === 0 && !pointer) continue;
    const entity = new Map<string, string>();
    const add = (word: string) => {
      if (entity.size < 6 && !entity.has(stem(word))) entity.set(stem(word), word);
    };
    for (const word of nameWords) if (isEntityWord(word)) add(word);
    // The words beside a handle word in the description: "User ID", "ID of the task".
    for (let i = 0; i < description.length; i++) {
      if (!HANDLE_WORDS.has(description[i] as string)) continue;
      const before = description[i - 1];
      if (before && isEntityWord(before)) {
        add(before);
        const further = description[i - 2];
        if (further && isEntityWord(further)) add(further);
      }
      let j = i + 1;
      while (j < description.length && j <= i + 4 && GLUE.has(description[j] as string)) j++;
      const after = description[j];
      if (j > i + 1 && after && isEntityWord(after)) add(after);
    }
    // A bare `id` or `ticker` says little: the tool's own name says what it is about (`update_event` → event).
    if (nameWords.every((word) => HANDLE_WORDS.has(word) || !isEntityWord(word)))
      for (const word of identifierWords(tool.name)) if (isEntityWord(word)) add(word);
    if (entity.size === 0 && !pointer && handle.every((word) => word === 'id' || word === 'ids')) continue;
    out.push({
      parameter,
      entity: [...entity.keys()],
      words: [...entity.values()],
      handle,
      mentions: nameWords.filter((word) => word.length >= 3 && !HANDLE_WORDS.has(word)),
      ...(required.has(parameter) ? {} : { optional: true }),
    });
  }
  return out;
}

interface ToolWords {
  /** Name words, stemmed. */
  readonly name: readonly string[];
  /** The name's object: its last entity word, stemmed (`get_user_tickets` → ticket). */
  readonly object: string | undefined;
  /** 0.4 for a name that finds (search, list…), 0.2 for one that fetches (get, view…), else 0. */
  readonly finder: number;
  /** Name words written in the plural, stemmed: a tool about many of them lists them. */
  readonly plural: ReadonlySet<string>;
  readonly description: ReadonlySet<string>;
  readonly mentionsHandle: boolean;
  /** Description words next to a handle word ("task IDs", "its email_id"), stemmed. */
  readonly handleNeighbours: ReadonlySet<string>;
  readonly inputs: readonly HandleInput[];
}

function toolWords(tool: ToolSchema): ToolWords {
  const rawName = identifierWords(typeof tool?.name === 'string' ? tool.name : '');
  const name = rawName.map(stem);
  const entities = rawName.filter(isEntityWord);
  const raw = headWords(tool?.description);
  const inputs = handleInputs(tool);
  // A handle the description names only as one of the tool's own inputs ("can reserve a room by
  // its room ID") is something it takes, not something it returns.
  const own = new Set(inputs.flatMap((input) => input.entity));
  const handleNeighbours = new Set<string>();
  let mentionsHandle = false;
  raw.forEach((word, i) => {
    if (!HANDLE_WORDS.has(word)) return;
    // "task IDs", "IDs of the tasks" (not "contact ID, email and phone": the email is no handle there).
    const neighbours: string[] = [];
    const before = raw[i - 1];
    if (before && isEntityWord(before)) neighbours.push(stem(before));
    let j = i + 1;
    if (raw[j] === 'of' || raw[j] === 'for') {
      j++;
      while (j < raw.length && j <= i + 4 && GLUE.has(raw[j] as string)) j++;
      const after = raw[j];
      if (after && isEntityWord(after)) neighbours.push(stem(after));
    }
    const produced = neighbours.filter((entity) => !own.has(entity));
    if (neighbours.length > 0 && produced.length === 0) return;
    mentionsHandle = true;
    for (const entity of produced) handleNeighbours.add(entity);
  });
  // A literal parameter name in the description ("each with its email_id") names the handle too.
  for (const match of (typeof tool?.description === 'string' ? tool.description.slice(0, 4000) : '').matchAll(
    /\b([a-z]+)_?(?:id|ids|Id|Ids)\b/g,
  )) {
    const word = (match[1] as string).toLowerCase();
    if (isEntityWord(word) && !own.has(stem(word))) handleNeighbours.add(stem(word));
  }
  return {
    name,
    object: entities.length > 0 ? stem(entities[entities.length - 1] as string) : undefined,
    finder: name.some((word) => FINDERS.has(word)) ? 0.4 : name.some((word) => WEAK_FINDERS.has(word)) ? 0.2 : 0,
    plural: new Set(entities.filter((word) => stem(word) !== word && word.endsWith('s')).map(stem)),
    description: new Set(raw.map(stem)),
    mentionsHandle,
    handleNeighbours,
    inputs,
  };
}

/** Words in a parameter description that point at the tool producing it: "obtained from the authenticate method". */
function hintsOf(text: string): string[] {
  const hints: string[] = [];
  for (const match of text.matchAll(/\b(?:from|by|via|see|using|after|calling)\s+(?:the\s+|a\s+)?([A-Za-z][\w.-]*)/g)) {
    const word = (match[1] as string).toLowerCase();
    for (const part of identifierWords(word))
      if (part.length >= 3 && !STOPWORDS.has(part) && !GENERIC.has(part)) hints.push(stem(part));
  }
  return hints;
}

function cosine(vectors: ToolVectors | undefined, a: number, b: number): number {
  if (!vectors) return 0;
  const { matrix, dimensions } = vectors;
  if (matrix.length < (Math.max(a, b) + 1) * dimensions) return 0;
  let sum = 0;
  const offsetA = a * dimensions;
  const offsetB = b * dimensions;
  for (let j = 0; j < dimensions; j++) sum += (matrix[offsetA + j] as number) * (matrix[offsetB + j] as number);
  return Number.isFinite(sum) ? sum : 0;
}

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
  options: { declared?: ToolLinkOptions['declared']; infer?: boolean; vectors?: ToolVectors } = {},
): ToolLinks {
  const warnings: string[] = [];
  const position = new Map<string, number>();
  all.forEach((tool, i) => {
    if (tool && typeof tool.name === 'string' && !position.has(tool.name)) position.set(tool.name, i);
  });
  const declared = declaredLinks(options.declared, position, warnings);
  const needs = new Map<number, IndexedLink[]>();

  if (options.infer !== false) {
    const words = all.map(toolWords);
    // Inverted indexes: a name word or description word → tools holding it.
    const byName = new Map<string, number[]>();
    const byDescription = new Map<string, number[]>();
    const index = (map: Map<string, number[]>, word: string, i: number) => {
      const list = map.get(word);
      if (!list) map.set(word, [i]);
      else if (list[list.length - 1] !== i) list.push(i);
    };
    words.forEach((tool, i) => {
      for (const word of tool.name) index(byName, word, i);
      for (const word of tool.description) index(byDescription, word, i);
    });
    // Tools holding a word of the same entity: the word itself, its prefixes ("document" holds
    // "doc"), and words it is a prefix of (sorted keys, one binary search).
    const sortedKeys = (map: Map<string, number[]>) => [...map.keys()].sort();
    const keys = { name: sortedKeys(byName), description: sortedKeys(byDescription) };
    const prefixMemo = new Map<string, { name: number[]; description: number[] }>();
    const holders = (word: string) => {
      let found = prefixMemo.get(word);
      if (!found) {
        const collect = (map: Map<string, number[]>, list: string[]) => {
          const out: number[] = [];
          for (let end = 3; end <= word.length; end++) {
            const prefix = word.slice(0, end);
            if (sameEntity(prefix, word)) out.push(...(map.get(prefix) ?? []));
          }
          let low = 0;
          let high = list.length;
          while (low < high) {
            const mid = (low + high) >> 1;
            if ((list[mid] as string) < word) low = mid + 1;
            else high = mid;
          }
          for (let i = low; i < list.length && (list[i] as string).startsWith(word); i++) {
            const key = list[i] as string;
            if (key !== word && sameEntity(key, word)) out.push(...(map.get(key) ?? []));
          }
          return out;
        };
        found = { name: collect(byName, keys.name), description: collect(byDescription, keys.description) };
        prefixMemo.set(word, found);
      }
      return found;
    };
    // Only tools that could produce a handle are candidates through their entity words: a name
    // that finds or fetches, a description that mentions handles. (Hints, exact names and handle
    // words in a name reach the others.)
    const capable = words.map((tool) => tool.finder > 0 || tool.mentionsHandle || tool.handleNeighbours.size > 0);
    const holderMemo = new Map<string, { inName: Set<number>; inDescription: Set<number> }>();
    const entityHolders = (entity: readonly string[]) => {
      const key = entity.join(' ');
      let found = holderMemo.get(key);
      if (!found) {
        found = { inName: new Set<number>(), inDescription: new Set<number>() };
        for (const word of entity) {
          const held = holders(word);
          for (const i of held.name) if (capable[i]) found.inName.add(i);
          for (const i of held.description) if (capable[i]) found.inDescription.add(i);
        }
        holderMemo.set(key, found);
      }
      return found;
    };
    // The tools a parameter's description names outright ("Mailbox message ID from search_email").
    const pointedAt = (text: string, consumer: number) => {
      const out = new Set<number>();
      for (const token of text.match(/[A-Za-z][\w.-]*/g) ?? []) {
        const name = token.replace(/[.]+$/, '');
        // Only a name that cannot be a plain word ("list_deployments", "getUser"): a tool called "add" is not meant by "to add".
        const at = position.get(name);
        if (at !== undefined && at !== consumer && identifierWords(name).length >= 2) out.add(at);
      }
      return out;
    };
    // Siblings share their handles: tools about one object that take a parameter of one name
    // (reply_to_email and forward_email, both `message_id`) take the same thing, and a registry
    // often says where it comes from only once. Keyed by object and parameter.
    const siblingKey = (tool: ToolWords, input: HandleInput) => `${tool.object ?? ''}\u0000${input.parameter}`;
    // Per tool and input (in `inputs` order), the tools its description names; read once here.
    const pointedBy = words.map((tool, consumer) => {
      const props = toolProperties(all[consumer] as ToolSchema) ?? {};
      return tool.inputs.map((input) => pointedAt(descriptionOf(props[input.parameter]), consumer));
    });
    const bySibling = new Map<string, Set<number>>();
    words.forEach((tool, consumer) => {
      if (tool.object === undefined) return;
      for (const [n, input] of tool.inputs.entries()) {
        const pointed = pointedBy[consumer]?.[n] ?? new Set<number>();
        if (pointed.size === 0) continue;
        const key = siblingKey(tool, input);
        const set = bySibling.get(key) ?? new Set<number>();
        // Bounded: a crowd of siblings each naming others adds at most a few candidates.
        for (const i of pointed) if (set.size < MAX_DECLARED) set.add(i);
        bySibling.set(key, set);
      }
    });
    let crowded = 0;
    let crowdedExample = '';

    all.forEach((tool, consumer) => {
      if (declared.has(consumer)) return;
      const inputs = words[consumer]?.inputs ?? [];
      if (inputs.length === 0) return;
      const props = toolProperties(tool) ?? {};
      const links: IndexedLink[] = [];
      for (const [n, input] of inputs.entries()) {
        const text = descriptionOf(props[input.parameter]);
        const exact = pointedBy[consumer]?.[n] ?? new Set<number>();
        const sibling = new Set<number>();
        if (words[consumer]?.object !== undefined)
          for (const i of bySibling.get(siblingKey(words[consumer] as ToolWords, input)) ?? [])
            if (i !== consumer && !exact.has(i)) sibling.add(i);
        const hints = hintsOf(text);
        const candidates = new Set<number>([...exact, ...sibling]);
        const { inName, inDescription } = entityHolders(input.entity);
        for (const i of inName) candidates.add(i);
        for (const i of inDescription) candidates.add(i);
        for (const word of [...hints, ...input.handle.filter((w) => w !== 'id' && w !== 'ids')])
          for (const i of byName.get(stem(word)) ?? []) candidates.add(i);
        candidates.delete(consumer);

        const scored: { index: number; score: number }[] = [];
        for (const candidate of candidates) {
          const score = providerEvidence(input, words[candidate] as ToolWords, {
            exact: exact.has(candidate),
            sibling: sibling.has(candidate),
            hints,
            entityInName: inName.has(candidate),
            entityInDescription: inDescription.has(candidate),
          });
          if (score < LINK_DEFAULTS.minEvidence) continue;
          scored.push({
            index: candidate,
            score: score + LINK_DEFAULTS.denseWeight * Math.max(0, cosine(options.vectors, consumer, candidate)),
          });
        }
        if (scored.length === 0) continue;
        scored.sort((a, b) => b.score - a.score || a.index - b.index);
        if (scored.length >= CROWDED) {
          crowded++;
          if (!crowdedExample) crowdedExample = `${tool.name}.${input.parameter}: ${scored.length}`;
        }
        const best = (scored[0] as { score: number }).score;
        const kept = scored
          .filter((item) => item.score >= LINK_DEFAULTS.relative * best)
          .slice(0, LINK_DEFAULTS.maxProviders);
        links.push({
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
        });
      }
      if (links.length > 0) needs.set(consumer, links);
    });
    if (crowded > 0) {
      warnings.push(
        `tool links: ${crowded} input${crowded === 1 ? ' has' : 's have'} ${CROWDED} or more candidate providers (e.g. ${crowdedExample}); ` +
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

/** The lexical evidence that `provider` produces `input` (0 when it plainly does not). */
function providerEvidence(
  input: HandleInput,
  provider: ToolWords,
  found: {
    exact: boolean;
    sibling?: boolean;
    hints: readonly string[];
    entityInName: boolean;
    entityInDescription: boolean;
  },
): number {
  const { exact, hints, entityInName, entityInDescription } = found;
  // Named by a sibling's description: nearly as good as being named by this one's.
  const sibling = !exact && found.sibling === true;
  const mine = (word: string) => input.entity.some((entity) => sameEntity(word, entity));
  // The cheap tests first: most tools of a big registry neither find things nor mention handles.
  const hinted = hints.length > 0 && hints.some((hint) => provider.name.includes(hint));
  const finder = provider.finder;
  let handleInName = entityInName && provider.name.includes('id');
  for (const word of input.handle)
    if (word !== 'id' && word !== 'ids' && provider.name.includes(stem(word))) handleInName = true;
  const handleInDescription =
    provider.mentionsHandle &&
    (provider.description.has('id') ||
      provider.description.has('ids') ||
      input.handle.some((word) => provider.description.has(stem(word))));
  let namesHandle = false;
  for (const word of provider.handleNeighbours) if (mine(word)) namesHandle = true;
  const about = exact || sibling || hinted || entityInName || entityInDescription || handleInName;
  const produces = exact || sibling || hinted || finder > 0 || handleInDescription || handleInName || namesHandle;
  if (!about || !produces) return 0;
  // A tool that itself needs a handle of the same entity cannot be where one comes from.
  if (!exact && !sibling && provider.inputs.some((other) => !other.optional && other.entity.some(mine))) return 0;
  const entityIsObject = provider.object !== undefined && mine(provider.object);
  let lists = false;
  for (const word of provider.plural) if (mine(word)) lists = true;
  return (
    (exact ? 2 : sibling ? 1.5 : 0) +
    (hinted ? 1 : 0) +
    (entityIsObject ? 0.6 : entityInName ? 0.4 : 0) +
    (lists ? 0.2 : 0) +
    (handleInName ? 0.5 : 0) +
    finder +
    (entityInDescription ? 0.3 : 0) +
    (namesHandle ? 0.4 : handleInDescription ? 0.2 : 0)
  );
}

function declaredLinks(
  declared: ToolLinkOptions['declared'],
  position: ReadonlyMap<string, number>,
  warnings: string[],
): Map<number, IndexedLink> {
  const out = new Map<number, IndexedLink>();
  if (!declared || typeof declared !== 'object') return out;
  for (const [tool, needed] of Object.entries(declared)) {
    const consumer = position.get(tool);
    if (consumer === undefined) {
      warnings.push(`tool links: declared links of "${tool}" ignored: no tool of that name is registered`);
      continue;
    }
    const list = Array.isArray(needed) ? needed : [];
    if (!Array.isArray(needed))
      warnings.push(`tool links: declared links of "${tool}" ignored: expected a list of tool names`);
    const providers: number[] = [];
    const names: string[] = [];
    for (const name of list) {
      const at = typeof name === 'string' ? position.get(name) : undefined;
      if (at === undefined)
        warnings.push(`tool links: "${tool}" needs "${String(name)}", which is not registered; ignored`);
      else if (at === consumer) warnings.push(`tool links: "${tool}" cannot need itself; ignored`);
      else if (!providers.includes(at) && providers.length < MAX_DECLARED) {
        providers.push(at);
        names.push(name as string);
      }
    }
    if (list.length > MAX_DECLARED)
      warnings.push(`tool links: "${tool}" declares ${list.length} tools; only the first ${MAX_DECLARED} are kept`);
    out.set(consumer, {
      link: { tool, providers: names, source: 'declared' },
      providers,
      strength: providers.map((_, i) => 1 - i * 0.01),
    });
  }
  return out;
}

/** One warning per cycle among declared links (the walk stops at a tool it has met, so a cycle costs nothing). */
function declaredCycles(declared: ReadonlyMap<number, IndexedLink>, all: readonly ToolSchema[]): string[] {
  const warnings: string[] = [];
  const state = new Map<number, 'open' | 'done'>();
  const path: number[] = [];
  const visit = (node: number) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of declared.get(node)?.providers ?? []) {
      if (state.get(next) === 'open') {
        const cycle = [...path.slice(path.indexOf(next)), next].map((i) => (all[i] as ToolSchema).name);
        if (warnings.length < 8)
          warnings.push(`tool links: declared links form a cycle (${cycle.join(' → ')}); a selection follows it once`);
      } else if (!state.has(next) && declared.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of declared.keys()) if (!state.has(node)) visit(node);
  return warnings;
}

// A literal that looks like a handle: INC-2041, d-7781, doc_8812, USR001, 4821, 7f3a9c, a UUID.
const HANDLE_LITERAL = /^(?:#?\d{2,}|[A-Za-z]{1,8}[-_]?\d[\w-]*|\d[\w-]*[A-Za-z][\w-]*|[0-9a-f]{8}-[0-9a-f-]{27,})$/;
// Digits that are a time, a date, an amount or a count, never a handle: 3pm, 10:30, 12th, $40k, 30min, 50%.
const NOT_HANDLE =
  /^(?:\d{1,2}(?::\d{2})?(?:am|pm)|\d{1,2}:\d{2}|\d+(?:st|nd|rd|th)|\d+(?:[.,]\d+)*(?:k|m|bn|h|hr|hrs|min|mins|s|sec|secs|d|days?|w|wk|weeks?|%|x|gb|mb|kb|km|mi|kg|lb|lbs))$/i;
const FILLER = new Set([
  'is',
  'id',
  'ids',
  'number',
  'no',
  'with',
  'of',
  'the',
  'code',
  '=',
  ':',
  '#',
  'called',
  'named',
]);
const TICKER = /(?:^|[\s"'($])[A-Z]{2,5}(?=$|[\s"'),.;:!?'])/;

/**
 * Whether a prompt gives the input itself: a handle-like literal right after the entity's
 * word or an id word ("task 4821", "incident INC-2041", "id is 'USR002'", "#921"), or an
 * upper-case ticker-like word where the handle is a ticker or symbol. A time, date or amount
 * ("the task at 3pm") is not a handle.
 *
 * @example
 * suppliedIn('Mark task 4821 as done', { parameter: 'task_id', entity: ['task'], handle: ['id'], words: ['task'], mentions: ['task'] }) // true
 * suppliedIn("Reassign Dana's tasks to Luis", { parameter: 'task_id', entity: ['task'], handle: ['id'], words: ['task'], mentions: ['task'] }) // false
 */
export function suppliedIn(prompt: string, input: HandleInput): boolean {
  const text = typeof prompt === 'string' ? prompt.slice(0, 4000) : '';
  if (text === '') return false;
  if (input.handle.some((word) => word === 'ticker' || word === 'symbol') && TICKER.test(text)) return true;
  if (/(?:^|\s)#\d+\b/.test(text)) return true;
  const words = text.split(/\s+/).map((word) => word.replace(/^["'([]+|["'),.;:!?\]]+$/g, ''));
  for (let i = 0; i < words.length; i++) {
    const word = (words[i] as string).toLowerCase();
    const anchor =
      HANDLE_WORDS.has(word) ||
      word === 'number' ||
      word === 'no' ||
      input.entity.some((entity) => sameEntity(stem(word), entity));
    if (!anchor) continue;
    let j = i + 1;
    while (j < words.length && j <= i + 3 && FILLER.has((words[j] as string).toLowerCase())) j++;
    const next = words[j];
    if (next && HANDLE_LITERAL.test(next) && !NOT_HANDLE.test(next)) return true;
  }
  return false;
}

// Entities that are people: a person's name in the prompt names one.
const PEOPLE = new Set(
  [
    'employee',
    'user',
    'member',
    'person',
    'people',
    'worker',
    'staff',
    'assignee',
    'owner',
    'contact',
    'attendee',
    'participant',
    'recipient',
    'candidate',
    'colleague',
    'teammate',
    'reviewer',
    'approver',
    'requester',
  ].map(stem),
);
// Capitalised words that start a sentence or name a time, never a person.
const NOT_NAMES = new Set(
  'the this that these those please can could would will what who whom whose where when why how which is are do does did i we you my our your hi hey dear thanks monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec'.split(
    ' ',
  ),
);
const CAPITALISED_PAIR = /\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b/g;

/** Whether a prompt names a person: a first and last name ("Lena Hoffmann"), as people write them. */
export function namesPerson(prompt: string): boolean {
  for (const match of prompt.slice(0, 4000).matchAll(CAPITALISED_PAIR))
    if (!NOT_NAMES.has((match[1] as string).toLowerCase()) && !NOT_NAMES.has((match[2] as string).toLowerCase()))
      return true;
  return false;
}

/**
 * Whether the prompt names what an optional handle is about ("… in the Website project" for
 * `project_id`; a person's name for `employee_id`).
 */
function mentionedIn(words: readonly string[], input: HandleInput, person: () => boolean): boolean {
  if (input.entity.some((entity) => PEOPLE.has(entity)) && person()) return true;
  const about = [...input.entity, ...input.mentions.map(stem)];
  // "assign" names an `assignee_id`: a prompt word may be the start of the parameter's word.
  return words.some((word) =>
    about.some((entity) => sameEntity(word, entity) || (word.length >= 4 && entity.startsWith(word))),
  );
}

/** What {@link prerequisitesFor} adds to a selection. */
export interface Prerequisites {
  /** Registry indices to advertise beyond the picks, in the order they were added. */
  readonly extra: readonly number[];
  /** For each prerequisite (in the picks or added), the tools that need it. */
  readonly neededBy: ReadonlyMap<number, readonly string[]>;
  /** Which of `extra` are an intent's own best tool (`intents`), not a prerequisite. */
  readonly intents: ReadonlySet<number>;
}

/**
 * The prerequisites of a selection: for each anchor (best first), each link whose input the
 * prompt does not supply is served by a provider already picked, or else by its best provider
 * (link evidence plus the prompt's own score for it) while the budget lasts; a provider's own
 * prerequisites follow, to {@link LINK_DEFAULTS.depth}. The tools take turns, one slot of the
 * budget each, so a second anchor's lookup is not crowded out by the first anchor's second
 * input. Each tool is visited once, so cycles cost nothing.
 *
 * @example
 * const { extra, neededBy } = prerequisitesFor(links, { picked, anchors: picked.slice(0, 3), score, prompt, budget: 2 })
 * // extra: registry indices to advertise beyond the picks; neededBy: index → names of the tools needing it
 */
export function prerequisitesFor(
  links: ToolLinks,
  options: {
    picked: readonly number[];
    anchors: readonly number[];
    score: ArrayLike<number>;
    prompt: string;
    budget: number;
    /** Tools that must be advertised (each clause's best): added first, from the same budget, and anchors too. */
    intents?: readonly number[];
    promptWeight?: number;
  },
): Prerequisites {
  const { picked, score, prompt, budget } = options;
  const promptWeight = options.promptWeight ?? 1;
  const surface = new Set(picked);
  const extra: number[] = [];
  const neededBy = new Map<number, string[]>();
  const intents = new Set<number>();
  for (const intent of options.intents ?? []) {
    if (surface.has(intent) || extra.length >= budget) continue;
    extra.push(intent);
    intents.add(intent);
    surface.add(intent);
  }
  const anchors = [...options.anchors, ...(options.intents ?? [])];
  if (links.needs.size === 0) return { extra, neededBy, intents };
  let words: string[] | undefined;
  const promptWords = () => {
    words ??= rawWords(prompt.slice(0, 4000)).map(stem);
    return words;
  };
  let named: boolean | undefined;
  const person = () => {
    named ??= namesPerson(prompt);
    return named;
  };
  const visited = new Set<number>();
  // Each queued tool with the position of its next input to serve.
  const queue: { tool: number; depth: number; next: number }[] = [];
  for (const anchor of anchors) {
    if (visited.has(anchor)) continue;
    visited.add(anchor);
    queue.push({ tool: anchor, depth: 0, next: 0 });
  }
  const note = (provider: number, consumer: string) => {
    const list = neededBy.get(provider) ?? [];
    if (!list.includes(consumer)) list.push(consumer);
    neededBy.set(provider, list);
  };
  // In turns: each queued tool serves its inputs up to the first that costs a slot of the budget,
  // then the next tool has its turn, so every anchor's first lookup comes before any anchor's second.
  for (let more = true; more; ) {
    more = false;
    for (let head = 0; head < queue.length; head++) {
      const entry = queue[head] as { tool: number; depth: number; next: number };
      const needs = links.needs.get(entry.tool) ?? [];
      while (entry.next < needs.length) {
        const link = needs[entry.next++] as (typeof needs)[number];
        if (
          link.input &&
          (suppliedIn(prompt, link.input) || (link.input.optional && !mentionedIn(promptWords(), link.input, person)))
        )
          continue;
        let chosen = link.providers.find((provider) => surface.has(provider));
        let spent = false;
        if (chosen === undefined) {
          if (extra.length >= budget) continue;
          let best = -Infinity;
          link.providers.forEach((provider, i) => {
            const value = (link.strength[i] as number) + promptWeight * ((score[provider] as number) || 0);
            if (value > best) {
              best = value;
              chosen = provider;
            }
          });
          if (chosen === undefined) continue;
          extra.push(chosen);
          surface.add(chosen);
          spent = true;
        }
        note(chosen, link.link.tool);
        if (entry.depth + 1 < LINK_DEFAULTS.depth && !visited.has(chosen)) {
          visited.add(chosen);
          queue.push({ tool: chosen, depth: entry.depth + 1, next: 0 });
        }
        if (spent) {
          more = true;
          break;
        }
      }
    }
  }
  return { extra, neededBy, intents };
}
