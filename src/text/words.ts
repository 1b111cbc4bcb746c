/**
 * Tokenising shared by the lexical selectors: lowercase words of three or more characters,
 * stopwords out (the lexicon's; English by default, as for a tool's own text), tool names split
 * on `_ . - /` and camelCase.
 */
import { STOPWORDS } from './english-lexicon.js';
import type { Lexicon } from './lexicon.js';

export { STOPWORDS };

/** Split an identifier on `_ . - /`, spaces and camelCase / digit boundaries, lowercased. */
export function splitName(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.\-/:]+/)
    .map((part) => part.toLowerCase())
    .filter((part) => part.length > 0);
}

/** The raw lowercase word sequence of a text (letters and digits, any script). */
export function rawWords(text: string): string[] {
  return isAscii(text) ? asciiWords(text, false) : (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Is this word kept as a selection token (three or more characters, not a stopword)? */
export function isToken(word: string): boolean {
  return keeps(word, STOPWORDS);
}

function keeps(word: string, stopwords: ReadonlySet<string>): boolean {
  return word.length >= 3 && !stopwords.has(word);
}

/**
 * Selection tokens of free text: lowercase words of three or more characters, minus the
 * lexicon's stopwords (English when none is given).
 *
 * @example
 * textTokens('Get the weatherForecast') // ['weather', 'forecast']
 */
export function textTokens(text: string, lexicon?: Pick<Lexicon, 'stopwords'>): string[] {
  const stopwords = lexicon?.stopwords ?? STOPWORDS;
  if (isAscii(text)) return asciiWords(text, true, stopwords);
  return rawWords(text.replace(/([a-z0-9])([A-Z])/g, '$1 $2')).filter((word) => keeps(word, stopwords));
}

const NON_ASCII = /[\u0080-\uffff]/;

function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

// The hot path of index builds (tens of thousands of words per registry): in ASCII the
// Unicode classes above are exactly [A-Za-z0-9], so one scan replaces lowercasing, the
// camelCase split and the regex match, with the same output and no intermediate arrays.
// `tokens`: keep only tokens, with these stopwords out.
function asciiWords(text: string, camel: boolean, tokens?: ReadonlySet<string>, words: string[] = []): string[] {
  let start = -1;
  let previous = 0;
  const emit = (end: number): void => {
    const word = text.slice(start, end).toLowerCase();
    if (!tokens || keeps(word, tokens)) words.push(word);
  };
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    const upper = code >= 65 && code <= 90;
    const lowerOrDigit = (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
    if (upper || lowerOrDigit) {
      // "getWeather" → get | weather: an upper-case letter right after a lower-case letter or digit.
      if (start >= 0 && camel && upper && ((previous >= 97 && previous <= 122) || (previous >= 48 && previous <= 57))) {
        emit(i);
        start = i;
      } else if (start < 0) {
        start = i;
      }
    } else if (start >= 0) {
      emit(i);
      start = -1;
    }
    previous = code;
  }
  return words;
}

/**
 * Append the selection tokens of free text to `out` (the same tokens as {@link textTokens}).
 *
 * @example
 * const out: string[] = []
 * pushTextTokens('Get the weatherForecast', out) // out: ['weather', 'forecast']
 */
export function pushTextTokens(text: string, out: string[]): void {
  if (isAscii(text)) asciiWords(text, true, STOPWORDS, out);
  else for (const token of textTokens(text)) out.push(token);
}

const nameTokenMemo = new Map<string, readonly string[]>();

/**
 * The selection tokens of an identifier (split, then filtered like free text). Memoised: a
 * registry repeats parameter names ("location", "unit") across hundreds of tools.
 *
 * @example
 * nameTokens('getWeatherForecast') // ['weather', 'forecast']
 */
export function nameTokens(name: string): readonly string[] {
  let tokens = nameTokenMemo.get(name);
  if (!tokens) {
    tokens = splitName(name).flatMap(rawWords).filter(isToken);
    if (nameTokenMemo.size >= 20_000) nameTokenMemo.clear();
    nameTokenMemo.set(name, tokens);
  }
  return tokens;
}

/** A tool's selection tokens: its split name plus its description. */
export function toolTokens(name: string, description: string): string[] {
  const tokens = [...nameTokens(name)];
  pushTextTokens(description, tokens);
  return tokens;
}

/** The text embedders see for a tool: split name, then description. */
export function toolText(name: string, description: string): string {
  const words = splitName(name).join(' ');
  return description ? `${words}: ${description}` : words;
}
