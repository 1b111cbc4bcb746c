/**
 * Tokenising shared by the lexical selectors: lowercase words of three or more characters,
 * stopwords out, tool names split on `_ . - /` and camelCase.
 */

/** Words that carry no selection signal; a prompt's "the" must not select every tool. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'the and for with that this from into onto over under then than them they their there these those ' +
    'what which when where while who whom whose why how are was were been being have has had having ' +
    'does did doing done can could should would will shall may might must not nor but yet all any ' +
    'both each few more most other some such only own same too very just also about above after again ' +
    "against before below between down during off once out through until upon via per its it's " +
    'you your yours our ours ourselves his her hers him she himself herself myself yourself themselves ' +
    'let lets please want need like get got use using used make made one two given returns return ' +
    'specified specific provided based want wants able'
  ).split(/\s+/),
);

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
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Is this word kept as a selection token (three or more characters, not a stopword)? */
export function isToken(word: string): boolean {
  return word.length >= 3 && !STOPWORDS.has(word);
}

/** Selection tokens of free text: lowercase words of three or more characters, minus stopwords. */
export function textTokens(text: string): string[] {
  return rawWords(text.replace(/([a-z0-9])([A-Z])/g, '$1 $2')).filter(isToken);
}

/** A tool's selection tokens: its split name plus its description. */
export function toolTokens(name: string, description: string): string[] {
  return [...splitName(name).flatMap(rawWords).filter(isToken), ...textTokens(description)];
}

/** The text embedders see for a tool: split name, then description. */
export function toolText(name: string, description: string): string {
  const words = splitName(name).join(' ');
  return description ? `${words}: ${description}` : words;
}
