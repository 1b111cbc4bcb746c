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

/** Encodes text to USE-lite token ids (unclipped; the model reads the first 128). */
export interface UseLiteTokenizer {
  encode(text: string): number[];
  /** Number of vocabulary entries (8000 for USE lite). */
  readonly size: number;
}

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
  }

  const encode = (text: string): number[] => {
    const chars = Array.from(normalizeUseLite(text));
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
      at -= lengths[id] || 1;
    }
    return reversed.reverse();
  };

  return { encode, size: vocab.length };
}
