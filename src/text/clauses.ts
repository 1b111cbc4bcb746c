/**
 * A deterministic clause splitter for multi-intent prompts ("find the failing run, grab the
 * error from the logs and post it to #eng"): sentence ends, semicolons, sequencing words and,
 * when both sides are long enough to be requests of their own, a plain "and". No model: the
 * selector still ranks the whole prompt, so a wrong split costs a share of k, not the turn.
 */

import { mergeOptions } from '../options.js';
import { englishLoaded } from './english.js';
import type { LoadedLexicon } from './lexicon.js';
import { rawWords } from './words.js';

/** Options for {@link splitClauses}. */
export interface ClauseOptions {
  /** At most this many clauses; the tail past it stays joined to the last one. Default 4. */
  readonly maxClauses?: number;
  /**
   * A plain "and" splits only when each side has at least this many words (so "cats and
   * dogs" stays one clause). Default 4; `Infinity` never splits on a plain "and".
   */
  readonly andMinWords?: number;
  /** A clause needs at least this many words, else it joins its neighbour. Default 2. */
  readonly minWords?: number;
  /** Like `andMinWords`, for a plain comma. Default `Infinity` (commas alone never split). */
  readonly commaMinWords?: number;
}

/** The defaults (chosen on the dev splits; see docs/tuning.md). */
export const CLAUSE_DEFAULTS = {
  maxClauses: 4,
  andMinWords: 4,
  minWords: 2,
  commaMinWords: Infinity,
} as const;

const COMMA = /,\s+/gu;

/**
 * The clauses of a prompt, in order, trimmed; a prompt with one intent comes back as one
 * clause (the prompt itself, trimmed). Never empty for a non-blank prompt, `[]` for a blank one.
 *
 * @example
 * splitClauses('Find the failing CI run, then grab the error from the logs and post it to #eng')
 * // ['Find the failing CI run', 'grab the error from the logs', 'post it to #eng']
 * splitClauses('convert 10 dollars to euros') // ['convert 10 dollars to euros']
 */
export function splitClauses(
  prompt: string,
  options: ClauseOptions = {},
  lexicon: LoadedLexicon = englishLoaded,
): string[] {
  const { maxClauses, andMinWords, minWords, commaMinWords } = mergeOptions(CLAUSE_DEFAULTS, options);
  const text = typeof prompt === 'string' ? prompt.trim() : '';
  if (text === '') return [];
  // Bounded work on a huge prompt: only its head is split (the selector still ranks it whole).
  const head = text.length > 4000 ? text.slice(0, 4000) : text;

  const pieces = head
    .split(lexicon.clauseSeparator)
    .flatMap((piece) => splitOn(piece ?? '', COMMA, ', ', commaMinWords))
    .flatMap((piece) => splitOn(piece, lexicon.clauseAnd, ' and ', andMinWords));
  const clauses: string[] = [];
  for (const piece of pieces) {
    const clause = piece
      .trim()
      .replace(lexicon.clauseLead, '')
      .replace(/^[,:\s]+|[,:\s.!?]+$/g, '');
    if (clause === '') continue;
    const last = clauses.length - 1;
    if (last >= 0 && (rawWords(clause).length < minWords || rawWords(clauses[last] as string).length < minWords)) {
      clauses[last] = `${clauses[last]} ${clause}`;
    } else clauses.push(clause);
  }
  if (clauses.length === 0) return [text];
  if (clauses.length > maxClauses) {
    const kept = clauses.slice(0, Math.max(1, maxClauses - 1));
    kept.push(clauses.slice(kept.length).join(' '));
    return kept;
  }
  return clauses;
}

function splitOn(piece: string, separator: RegExp, joiner: string, minWords: number): string[] {
  if (!Number.isFinite(minWords)) return [piece];
  const parts = piece.split(separator);
  if (parts.length === 1) return parts;
  // Greedy left to right: cut at an "and" only when both sides are long enough.
  const out: string[] = [];
  let current = parts[0] as string;
  for (let i = 1; i < parts.length; i++) {
    const next = parts[i] as string;
    const rest = parts.slice(i).join(joiner);
    const [before, after, nextWords] = [rawWords(current).length, rawWords(rest).length, rawWords(next).length];
    if (before >= minWords && after >= minWords && nextWords >= Math.min(2, minWords)) {
      out.push(current);
      current = next;
    } else current = `${current}${joiner}${next}`;
  }
  out.push(current);
  return out;
}

/**
 * The items of an enumerated prompt ("First, book the hotel. I need two rooms. Second, …"),
 * each kept whole across its sentences; `[]` when the prompt is not an enumeration (fewer than
 * two items of three or more words). Items past `maxItems` are dropped (the whole prompt is
 * still ranked).
 *
 * @example
 * splitEnumeration('First, book a hotel in Rome. Two rooms. Then convert 5 USD to EUR.')
 * // ['book a hotel in Rome. Two rooms', 'convert 5 USD to EUR.']
 */
export function splitEnumeration(prompt: string, maxItems = 6, lexicon: LoadedLexicon = englishLoaded): string[] {
  const text = typeof prompt === 'string' ? prompt.trim().slice(0, 4000) : '';
  const items = text
    .split(lexicon.enumeration)
    .map((item) => item.trim())
    .filter((item) => rawWords(item).length >= 3);
  return items.length > 1 ? items.slice(0, maxItems) : [];
}
