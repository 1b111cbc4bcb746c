/**
 * The USE-lite tokenizer, matching the one TF.js's Universal Sentence Encoder ships (as bundled in
 * `@energetic-ai/embeddings`) id for id, including its tie-breaking. It needs only the vocabulary
 * (`vocab.json` in the built model folder: `[piece, score]` pairs, index = id) and plain
 * JavaScript, so it runs in browsers, workers, Deno and Node alike.
 *
 * Behaviour (docs/model.md, "Tokenizer"):
 * - NFKC, then every ASCII space becomes `▁` and one `▁` is prepended (unless the text is empty);
 *   no lower-casing, trimming or special tokens.
 * - Viterbi over code points maximising the sum of piece scores, over the pieces with id ≥ 6
 *   (ids 0–5 are reserved; a repeated piece maps to its last id). A `null` score counts as 0.
 * - A code point where no piece starts becomes a one-character unknown (id 0, score 0), and a run
 *   of unknowns collapses into a single id 0.
 * - Ties go to the candidate seen last, i.e. the one whose final piece is shortest; and a running
 *   best of exactly 0 counts as unset, so any later candidate replaces it. These are the
 *   reference's quirks and are kept on purpose: the model was trained on its ids.
 *
 * @module
 */

/** One vocabulary entry: the piece and its log-probability score (`null` acts as 0). */
export type UseLiteVocabEntry = readonly [piece: string, score: number | null];

/** Ids below this are reserved (`�`, `<s>`, `</s>`, three spares) and never matched from text. */
export const USE_LITE_RESERVED_IDS = 6;

const SEPARATOR = '\u2581';

interface TrieNode {
  /** Child nodes keyed by one code point. */
  readonly next: Map<string, TrieNode>;
  /** Id of the piece ending here, or -1. */
  id: number;
  score: number;
}

const newNode = (): TrieNode => ({ next: new Map(), id: -1, score: 0 });

/**
 * Applies the reference normalisation: NFKC, spaces to `▁`, and a leading `▁` on non-empty text.
 *
 * @example
 * normalizeUseLite('Hello  world') // '▁Hello▁▁world'
 * normalizeUseLite('') // ''
 */
export function normalizeUseLite(text: string): string {
  const s = text.normalize('NFKC');
  return s.length > 0 ? SEPARATOR + s.replace(/ /g, SEPARATOR) : s;
}

/** The first ids of a text, and what producing them took. */
export interface UseLitePrefix {
  /** The first `maxTokens` ids of `encode(text)`. */
  readonly ids: number[];
  /** UTF-16 code units of `text` read to produce them: the work done, bounded by what is used. */
  readonly read: number;
  /**
   * What of the text read the vocabulary knows, in units of meaning: `known` counts the word
   * pieces on the text's path (pieces with a letter: ASCII, or two code points or more), and
   * `unknown` the letters it does not read: each letter no piece matched (one CJK character is
   * about a word) and each letter of a script the vocabulary holds only one letter at a time
   * (Cyrillic, Greek, Arabic there are spelled out, not read). Digits, punctuation, symbols and
   * emoji count for neither, so an id or a URL cannot make an unread prompt look read.
   */
  readonly known: number;
  readonly unknown: number;
}

/** Encodes text to USE-lite token ids (unclipped; the model reads the first 128). */
export interface UseLiteTokenizer {
  encode(text: string): number[];
  /**
   * The first `maxTokens` ids of `encode(text)`, reading only the text they come from: a
   * 7 MiB prompt costs what its first words cost. No piece spans a space, so the text is
   * tokenized space-separated segment by segment (each normalised on its own, which NFKC
   * allows at a space) until the ids are enough, and at most
   * `maxTokens` × {@link USE_LITE_CODE_POINTS_PER_TOKEN} code points are read. The ids are
   * exactly `encode(text).slice(0, maxTokens)` whenever those come from that much of the text
   * (English prompts need about a sixth of it); past it, a long run without spaces (unknown
   * script, base64) is cut, and the ids near the cut may differ.
   */
  encodePrefix(text: string, maxTokens: number): UseLitePrefix;
  /** Number of vocabulary entries (8000 for USE lite). */
  readonly size: number;
}

/** Code points per wanted id that {@link UseLiteTokenizer.encodePrefix} reads at most. */
export const USE_LITE_CODE_POINTS_PER_TOKEN = 32;

/**
 * Builds the tokenizer from the vocabulary, given as `[piece, score]` pairs in id order.
 *
 * @example
 * const vocab = await (await fetch('/models/use-lite/vocab.json')).json()
 * const tokenizer = createUseLiteTokenizer(vocab)
 * tokenizer.encode('How old are you?') // [728, 446, 31, 19, 54]
 */
export function createUseLiteTokenizer(vocab: readonly UseLiteVocabEntry[]): UseLiteTokenizer {
  if (!Array.isArray(vocab) || vocab.length <= USE_LITE_RESERVED_IDS) {
    throw new Error('use-lite: vocabulary must be an array of [piece, score] pairs');
  }
  const root = newNode();
  /** Per id: 1 a word piece, 2 one non-ASCII letter alone, 0 neither (see {@link UseLitePrefix}). */
  const meaning = new Uint8Array(vocab.length);
  /** Length in code points of each piece, for walking back through the lattice. */
  const lengths = new Uint16Array(vocab.length);
  lengths[0] = 1; // the unknown node always spans one code point
  for (let id = USE_LITE_RESERVED_IDS; id < vocab.length; id++) {
    const entry = vocab[id];
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') throw new Error(`use-lite: bad vocabulary entry ${id}`);
    const [piece, score] = entry;
    let node = root;
    let length = 0;
    for (const ch of piece) {
      let child = node.next.get(ch);
      if (!child) {
        child = newNode();
        node.next.set(ch, child);
      }
      node = child;
      length++;
    }
    if (length === 0) continue;
    node.id = id; // a repeated piece keeps its last id, as in the reference
    node.score = score ?? 0;
    lengths[id] = length;
    meaning[id] = pieceMeaning(piece);
  }

  /**
   * Viterbi over normalised code points; `stats` counts known and unknown units. A
   * segment of a longer text starts from that text's best total where it begins (`stats.total`),
   * so the reference's "a best of exactly 0 is unset" quirk sees the same totals as a whole read.
   */
  const encodeChars = (
    chars: readonly string[],
    stats?: { known: number; unknown: number; total: number },
  ): number[] => {
    const n = chars.length;
    if (n === 0) return [];
    // Lattice edges grouped by end position, each group in ascending start order (the order the
    // reference visits them in): flat triples of start, id, score.
    const edges: number[][] = Array.from({ length: n + 1 }, () => []);
    for (let start = 0; start < n; start++) {
      let node = root.next.get(chars[start] as string);
      let found = false;
      for (let end = start + 1; node; end++) {
        if (node.id >= 0) {
          (edges[end] as number[]).push(start, node.id, node.score);
          found = true;
        }
        if (end >= n) break;
        node = node.next.get(chars[end] as string);
      }
      if (!found) (edges[start + 1] as number[]).push(start, 0, 0);
    }

    const best = new Float64Array(n + 1); // 0 doubles as "unset", as in the reference
    best[0] = stats?.total ?? 0;
    const ids = new Int32Array(n + 1);
    for (let end = 1; end <= n; end++) {
      const group = edges[end] as number[];
      for (let k = 0; k < group.length; k += 3) {
        const total = (group[k + 2] as number) + (best[group[k] as number] as number);
        if (best[end] === 0 || total >= (best[end] as number)) {
          best[end] = total;
          ids[end] = group[k + 1] as number;
        }
      }
    }

    const reversed: number[] = [];
    for (let at = n; at > 0; ) {
      const id = ids[at] as number;
      // Collapse runs of unknowns (id 0) into one.
      if (!(id === 0 && reversed.at(-1) === 0)) reversed.push(id);
      if (stats) {
        const kind = id === 0 ? (LETTER.test(chars[at - 1] as string) ? 2 : 0) : meaning[id];
        if (kind === 1) stats.known++;
        else if (kind === 2) stats.unknown++;
      }
      at -= lengths[id] || 1;
    }
    if (stats) stats.total = best[n] as number;
    return reversed.reverse();
  };

  const encode = (text: string): number[] => encodeChars(Array.from(normalizeUseLite(text)));

  const encodePrefix = (text: string, maxTokens: number): UseLitePrefix => {
    const ids: number[] = [];
    const stats = { known: 0, unknown: 0, total: 0 };
    let budget = Math.max(0, maxTokens) * USE_LITE_CODE_POINTS_PER_TOKEN;
    let at = 0;
    let started = false;
    while (at < text.length && ids.length < maxTokens && budget > 0) {
      // The next segment: up to (not including) the next ASCII space after its first character,
      // within what is left of the budget.
      const space = text.indexOf(' ', at + 1);
      const limit = space === -1 ? text.length : space;
      let end = at;
      while (end < limit && budget > 0) {
        const code = text.charCodeAt(end);
        end += code >= 0xd800 && code <= 0xdbff && end + 1 < limit ? 2 : 1;
        budget--;
      }
      let normal = text.slice(at, end).normalize('NFKC');
      if (!started && normal !== '') {
        normal = SEPARATOR + normal;
        started = true;
      }
      const segment = encodeChars(Array.from(normal.replace(/ /g, SEPARATOR)), stats);
      // A run of unknowns continuing across segments collapses into one, as in a whole read.
      const from = segment[0] === 0 && ids.at(-1) === 0 ? 1 : 0;
      for (let i = from; i < segment.length && ids.length < maxTokens; i++) ids.push(segment[i] as number);
      at = end;
    }
    return { ids, read: at, known: stats.known, unknown: stats.unknown };
  };

  return { encode, encodePrefix, size: vocab.length };
}

const LETTER = /\p{L}/u;
const ASCII_LETTER = /[A-Za-z]/;

// 1 a word piece, 2 one non-ASCII letter alone, 0 neither (digits, punctuation, symbols, `▁`).
function pieceMeaning(piece: string): 0 | 1 | 2 {
  const bare = piece.startsWith(SEPARATOR) ? piece.slice(SEPARATOR.length) : piece;
  if (!LETTER.test(bare)) return 0;
  if (ASCII_LETTER.test(bare)) return 1;
  let points = 0;
  for (const _ of bare) points++;
  return points >= 2 ? 1 : 2;
}
