/**
 * What the hybrid derives once per tool list, shipped inside a vectors file (section `hyb1`):
 * the stemmed BM25 documents, each tool's name words and parameter words, and the tool links (lexical, dense and kind
 * links, which embed up to 256 inputs). A first turn over the list it was built for then seeds
 * these instead of deriving them. Loaded only when a hybrid's vectors file carries the section.
 *
 * The state is keyed by a SHA-256 digest of exactly the tools (name, description, parameters,
 * in order) and the embedder it was derived with, so it is used for that list alone: a file for
 * other tools, another embedder or a malformed state is ignored with a warning saying why, and
 * the hybrid derives as if there were none. Every decoded value is checked (lengths, indices,
 * names) before it is used; nothing is trusted because the key matched.
 *
 * @module
 */
import { digestJson } from '../digest.js';
import type { VectorsFile } from '../embed/vectors-file.js';
import type { RegistrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolNeedsOf } from '../registry/tool-needs.js';
import { english } from '../text/english.js';
import { loadLexicon } from '../text/lexicon.js';
import { nameStems, stemmedDocuments } from './blend-stages.js';
import type { HandleInput } from './handle-inputs.js';
import type { IndexedLink, ToolLink, ToolLinks } from './link-types.js';
import { parameterWords } from './multi-intent.js';

/** The section tag a vectors file carries the hybrid's state under. */
export const HYBRID_STATE_TAG = 'hyb1';

const FORMAT = 'loopctl/hybrid-state/v3';
/** Most bytes of state a reader decodes (bfcl's 1,857 tools take about 0.6 MB). */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

/** What a hybrid derives once per tool list, as shipped. */
export interface HybridState {
  /** Each tool's stemmed BM25 document (the default stemmer). */
  readonly documents: readonly string[][];
  /** Each tool's distinct stemmed name words (the name stage). */
  readonly names: readonly (readonly string[])[];
  /** Each tool's top-level parameter names as stemmed words (the parameter stage). */
  readonly parameters: readonly (readonly (readonly string[])[])[];
  /** The tool links with the default link options and lexicon. */
  readonly links: ToolLinks;
}

/** The embedder a state was derived with. */
export interface StateEmbedder {
  readonly id: string;
  readonly dimensions: number;
}

/**
 * The key of a tool list's state: SHA-256 over the format, the embedder and every tool's name,
 * description and parameters (as JSON, in order), 64 hex characters.
 *
 * @example
 * await hybridStateKey(registry.schemas(), embedder) // 'c0ffee…' (64 hex)
 */
export function hybridStateKey(all: readonly ToolSchema[], embedder: StateEmbedder): Promise<string> {
  // One JSON text of every tool, hashed once (JSON frames each string unambiguously).
  const tools = all.map((tool) => [String(tool?.name), String(tool?.description ?? ''), tool?.parameters ?? null]);
  return digestJson([FORMAT, embedder.id, embedder.dimensions, tools]);
}

/**
 * Encode a list's state as the `hyb1` section's bytes (UTF-8 JSON, words stored once).
 *
 * @example
 * const bytes = await encodeHybridState(all, embedder, { documents, names, parameters, links })
 */
export async function encodeHybridState(
  all: readonly ToolSchema[],
  embedder: StateEmbedder,
  state: HybridState,
): Promise<Uint8Array> {
  const words: string[] = [];
  const ids = new Map<string, number>();
  const id = (word: string): number => {
    let n = ids.get(word);
    if (n === undefined) {
      n = words.length;
      ids.set(word, n);
      words.push(word);
    }
    return n;
  };
  const documents = state.documents.map((document) => document.map(id));
  const names = state.names.map((list) => list.map(id));
  const parameters = state.parameters.map((lists) => lists.map((list) => list.map(id)));
  const needs = [...state.links.needs].map(([consumer, links]) => [consumer, links]);
  const json = {
    format: FORMAT,
    key: await hybridStateKey(all, embedder),
    tools: all.length,
    words,
    documents,
    names,
    parameters,
    links: { needs, warnings: state.links.warnings },
  };
  return new TextEncoder().encode(JSON.stringify(json));
}

/** A decode outcome: the state, or why it is not used. */
export type HybridStateResult =
  | { readonly ok: true; readonly state: HybridState }
  | { readonly ok: false; readonly reason: string };

/**
 * Decode and check a `hyb1` section against the list and embedder at hand. Never throws.
 *
 * @example
 * const read = await readHybridState(file.sections.get('hyb1'), all, embedder)
 * if (read.ok) seedHybridState(read.state, registrySnapshot(all), stem)
 */
export async function readHybridState(
  bytes: Uint8Array,
  all: readonly ToolSchema[],
  embedder: StateEmbedder,
): Promise<HybridStateResult> {
  if (bytes.byteLength > MAX_STATE_BYTES) return no(`${bytes.byteLength} bytes, at most ${MAX_STATE_BYTES}`);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return no('not JSON (corrupt)');
  }
  if (!json || typeof json !== 'object' || json.format !== FORMAT)
    return no(`unknown format ${JSON.stringify(String(json?.format)).slice(0, 60)}`);
  if (json.tools !== all.length) return no(`built for ${String(json.tools)} tools, this list has ${all.length}`);
  if (json.key !== (await hybridStateKey(all, embedder)))
    return no('built for other tools or another embedder (digest differs)');
  try {
    return { ok: true, state: decodeState(json, all) };
  } catch (error) {
    return no(`corrupt: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// One read per section and list, shared by every hybrid over the same file (a gateway's copies
// per search depth, its log line): the digest of a 10,000-tool list is not free.
const reads = new WeakMap<
  Uint8Array,
  WeakMap<readonly ToolSchema[], { id: string; read: Promise<HybridStateResult> }>
>();

/**
 * {@link readHybridState}, remembered per section bytes and list (and embedder).
 *
 * @example
 * const read = await readHybridStateOnce(section, all, embedder) // the same promise next time
 */
export function readHybridStateOnce(
  bytes: Uint8Array,
  all: readonly ToolSchema[],
  embedder: StateEmbedder,
): Promise<HybridStateResult> {
  let lists = reads.get(bytes);
  if (!lists) {
    lists = new WeakMap();
    reads.set(bytes, lists);
  }
  const id = `${embedder.id} ${embedder.dimensions}`;
  let entry = lists.get(all);
  if (!entry || entry.id !== id) {
    entry = { id, read: readHybridState(bytes, all, embedder) };
    lists.set(all, entry);
  }
  return entry.read;
}

/**
 * Seed a snapshot with a checked state's documents, name and parameter words (derivations
 * already built are kept), for the stemmer they were derived with.
 *
 * @example
 * seedHybridState(state, registrySnapshot(all), stem, await loadLexicon(english))
 */
export function seedHybridState(state: HybridState, snapshot: RegistrySnapshot, stem: (word: string) => string): void {
  snapshot.seed(stemmedDocuments(stem), state.documents);
  snapshot.seed(nameStems(stem), state.names);
  snapshot.seed(parameterWords(stem), state.parameters);
}

function no(reason: string): HybridStateResult {
  return { ok: false, reason };
}

function decodeState(json: Record<string, unknown>, all: readonly ToolSchema[]): HybridState {
  const words = json.words;
  if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) throw new Error('words');
  // A list per tool (or, `perTool` false, any number of lists: one tool's parameters).
  const lists = (value: unknown, what: string, perTool = true): string[][] => {
    if (!Array.isArray(value) || (perTool && value.length !== all.length))
      throw new Error(`${what}: not one list per tool`);
    return value.map((list) => {
      if (!Array.isArray(list)) throw new Error(`${what}: not a list`);
      return list.map((n) => {
        if (!Number.isInteger(n) || n < 0 || n >= words.length) throw new Error(`${what}: word ${String(n)}`);
        return words[n] as string;
      });
    });
  };
  const documents = lists(json.documents, 'documents');
  const names = lists(json.names, 'names');
  if (!Array.isArray(json.parameters) || json.parameters.length !== all.length)
    throw new Error('parameters: not one list per tool');
  const parameters = json.parameters.map((perTool: unknown) => lists(perTool, 'parameters', false));
  return { documents, names, parameters, links: decodeLinks(json.links, all) };
}

function decodeLinks(value: unknown, all: readonly ToolSchema[]): ToolLinks {
  const { needs: entries, warnings } = (value ?? {}) as { needs?: unknown; warnings?: unknown };
  if (!Array.isArray(warnings) || !warnings.every((w) => typeof w === 'string')) throw new Error('links: warnings');
  if (!Array.isArray(entries)) throw new Error('links: needs');
  // In the order they were derived (kind links come after the lexical ones), as `needs` was.
  const needs = new Map<number, IndexedLink[]>();
  for (const entry of entries) {
    const [consumer, links] = Array.isArray(entry) ? entry : [];
    if (
      !Number.isInteger(consumer) ||
      consumer < 0 ||
      consumer >= all.length ||
      needs.has(consumer) ||
      !Array.isArray(links)
    )
      throw new Error('links: consumer');
    needs.set(
      consumer,
      links.map((link) => indexedLink(link, consumer, all)),
    );
  }
  const links = [...needs.keys()]
    .sort((a, b) => a - b)
    .flatMap((consumer) => (needs.get(consumer) ?? []).map((item) => item.link));
  return { links, warnings, needs };
}

// The fields a shipped link may have (a `ToolLink`'s, checked by the compiler to be all of them).
const LINK_FIELDS: Record<keyof ToolLink, true> = {
  tool: true,
  parameter: true,
  entity: true,
  providers: true,
  source: true,
  optional: true,
};

function indexedLink(value: unknown, consumer: number, all: readonly ToolSchema[]): IndexedLink {
  const { link, providers, strength, input } = (value ?? {}) as Record<string, unknown>;
  const tool = (all[consumer] as ToolSchema).name;
  const named = link as ToolLink | undefined;
  if (!named || named.tool !== tool || named.source !== 'inferred') throw new Error(`links: ${tool}`);
  if (!Array.isArray(providers) || !Array.isArray(named.providers) || providers.length !== named.providers.length)
    throw new Error(`links: ${tool}'s providers`);
  providers.forEach((p, i) => {
    if (!Number.isInteger(p) || p < 0 || p >= all.length || all[p]?.name !== named.providers[i])
      throw new Error(`links: ${tool}'s provider ${String(p)}`);
  });
  if (
    !Array.isArray(strength) ||
    strength.length !== providers.length ||
    !strength.every((s) => typeof s === 'number' && Number.isFinite(s))
  )
    throw new Error(`links: ${tool}'s strengths`);
  for (const key of ['parameter', 'entity'] as const)
    if (named[key] !== undefined && typeof named[key] !== 'string') throw new Error(`links: ${tool}'s ${key}`);
  if (
    Object.keys(named).some((key) => !Object.hasOwn(LINK_FIELDS, key)) ||
    (named.optional !== undefined && named.optional !== true)
  )
    throw new Error(`links: ${tool}'s fields`);
  return {
    link: named,
    providers: providers as number[],
    strength: strength as number[],
    ...(input === undefined ? {} : { input: handleInput(input, tool) }),
  };
}

function handleInput(value: unknown, tool: string): HandleInput {
  const input = value as Record<string, unknown> | null;
  const strings = (list: unknown) => Array.isArray(list) && list.every((word) => typeof word === 'string');
  if (
    !input ||
    typeof input.parameter !== 'string' ||
    !strings(input.entity) ||
    !strings(input.handle) ||
    !strings(input.words) ||
    (input.optional !== undefined && typeof input.optional !== 'boolean')
  )
    throw new Error(`links: ${tool}'s input`);
  return input as unknown as HandleInput;
}

/**
 * Seed a hybrid's first turn over `all` from a vectors file's `hyb1` section: the snapshot's
 * documents and words, and (given `links`, the hybrid's shipped-links map, when its link
 * options are the defaults) the tool links. Returns whether it seeded, and the warnings to
 * report: none when the file carries no state or the state was used; one saying why when it was
 * ignored.
 *
 * @example
 * const { seeded, warnings } = await seedFromVectorsFile(file, all, registrySnapshot(all), { embedder, links })
 */
export async function seedFromVectorsFile(
  file: VectorsFile,
  all: readonly ToolSchema[],
  snapshot: RegistrySnapshot,
  options: { embedder: StateEmbedder; links?: WeakMap<readonly ToolSchema[], ToolLinks> },
): Promise<{ readonly seeded: boolean; readonly warnings: readonly string[] }> {
  const bytes = file.sections.get(HYBRID_STATE_TAG);
  if (!bytes) return { seeded: false, warnings: [] };
  const read = await readHybridStateOnce(bytes, all, options.embedder);
  if (!read.ok)
    return { seeded: false, warnings: [`vectors file's derived state ignored (${read.reason}); deriving it`] };
  seedHybridState(read.state, snapshot, (await loadLexicon(english)).stem);
  // Links declared with the list change what is inferred; the shipped ones assumed none.
  if (options.links && toolNeedsOf(all) === undefined) options.links.set(all, read.state.links);
  return { seeded: true, warnings: [] };
}
