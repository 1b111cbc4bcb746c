/**
 * Workplace shorthand spelled out beside itself ("Ack ALR-7710" → "Ack (acknowledge)
 * ALR-7710"), so that the lexical index meets the word a tool's name uses and the encoder meets
 * a word it knows. The short form stays: a registry that says "PTO" still matches it. The table
 * is the lexicon's (English: common workplace shorthand, not learned from any registry).
 */
import { englishLoaded } from './english.js';
import type { LoadedLexicon } from './lexicon.js';

const patterns = new WeakMap<Readonly<Record<string, string>>, RegExp>();

// A word on its own: not part of an address, a host name, a path or a file name
// ("info@acme.com", "db-replica-2", "docs/config.yaml"). Once per table.
function patternOf(table: Readonly<Record<string, string>>): RegExp {
  let pattern = patterns.get(table);
  if (!pattern) {
    pattern = new RegExp(
      `(?<![\\p{L}\\p{N}_@./-])(?:${Object.keys(table).join('|')})(?![\\p{L}\\p{N}_@/-]|\\.[\\p{L}\\p{N}])`,
      'giu',
    );
    patterns.set(table, pattern);
  }
  return pattern;
}

// "#support-leads": a chat channel, as workplace chat writes one (not "#4415", a number).
const CHANNEL = /(?<![\p{L}\p{N}_&/#])#\p{L}[\p{L}\p{N}_-]*/gu;

/**
 * The text with each shorthand word, and each chat channel ("#ops"), followed by what it stands
 * for, in parentheses; the text itself when it has none.
 *
 * @example
 * spellOutShorthand('DM priya that the build is green') // 'DM (direct message) priya that the build is green'
 * spellOutShorthand('convert 10 dollars') // 'convert 10 dollars'
 */
export function spellOutShorthand(text: string, lexicon: LoadedLexicon = englishLoaded): string {
  if (typeof text !== 'string') return '';
  const table = lexicon.shorthand;
  return text
    .replace(patternOf(table), (word) => `${word} (${table[word.toLowerCase()]})`)
    .replace(CHANNEL, (name) => `${name} (${lexicon.channel})`);
}
