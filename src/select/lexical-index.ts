import type { Derivation } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import { nameTokens, pushTextTokens, toolTokens } from '../text/words.js';

/**
 * A tool list tokenised once: per-tool token sets and an inverted index with document
 * frequencies. Built once per `all` array (registry generation), never per turn.
 */
export interface LexicalIndex {
  readonly size: number;
  /** word → indices of tools containing it, ascending. */
  readonly postings: ReadonlyMap<string, readonly number[]>;
  /** Inverse document frequency of each indexed word. */
  idf(word: string): number;
}

/**
 * The KeywordSelector's index of a registry: words of each tool's split name plus description.
 *
 * @example
 * const index = registrySnapshot(registry.schemas()).get(keywordIndex)
 * index.postings.get('weather') // [3, 17]
 */
export const keywordIndex: Derivation<LexicalIndex> = ({ tools }) =>
  buildIndex(tools.map((tool) => toolTokens(tool.name, tool.description)));

/**
 * An inverted index over documents of words: each word's documents, ascending, with IDF. The
 * one index every lexical piece builds on (the keyword selector, tool links).
 *
 * @example
 * buildIndex([['task', 'search'], ['task']]).postings.get('task') // [0, 1]
 */
export function buildIndex(documents: readonly (readonly string[])[]): LexicalIndex {
  const postings = new Map<string, number[]>();
  documents.forEach((tokens, docIndex) => {
    for (const token of new Set(tokens)) {
      const list = postings.get(token);
      if (list) list.push(docIndex);
      else postings.set(token, [docIndex]);
    }
  });
  const n = documents.length;
  return {
    size: n,
    postings,
    idf(word) {
      const df = postings.get(word)?.length ?? 0;
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    },
  };
}

/** The words a BM25 document holds for a tool: split name, description, parameter names and descriptions. */
export function bm25Document(tool: ToolSchema): string[] {
  const words = toolTokens(tool.name, tool.description);
  collectParameterWords(tool.parameters, words, 0);
  return words;
}

function collectParameterWords(schema: unknown, out: string[], depth: number): void {
  if (depth > 4 || !schema || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  if (typeof node.description === 'string' && depth > 0) pushTextTokens(node.description, out);
  const properties = node.properties as Record<string, unknown> | undefined;
  if (properties && typeof properties === 'object') {
    for (const name in properties) {
      if (!Object.hasOwn(properties, name)) continue;
      for (const token of nameTokens(name)) out.push(token);
      collectParameterWords(properties[name], out, depth + 1);
    }
  }
  if (node.items) collectParameterWords(node.items, out, depth + 1);
  if (Array.isArray(node.enum)) {
    for (const value of node.enum) if (typeof value === 'string') pushTextTokens(value, out);
  }
}
