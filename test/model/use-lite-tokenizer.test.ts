/**
 * loopctl's USE-lite tokenizer against the reference (the tokenizer bundled in
 * @energetic-ai/embeddings, which the TF.js model uses): exact id sequences on the port's test
 * texts and on stress strings (numbers, repeated characters, times, colon and reserved-piece edge
 * cases, whitespace and unknown characters) — including the Viterbi ties transformers.js orders
 * differently (notes §10).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createUseLiteTokenizer,
  normalizeUseLite,
  USE_LITE_CODE_POINTS_PER_TOKEN,
  type UseLiteTokenizer,
  type UseLiteVocabEntry,
} from '../../src/adapters/use-lite-tokenizer.js';
import { generateSentences } from './use-lite-sentences.js';
import { ensureModel, loadReference, MODEL_DIR, type Reference } from './use-lite-setup.js';

let reference: Reference;
let tokenizer: UseLiteTokenizer;
let vocab: UseLiteVocabEntry[];

beforeAll(async () => {
  await ensureModel();
  reference = await loadReference();
  vocab = JSON.parse(await readFile(join(MODEL_DIR, 'vocab.json'), 'utf8')) as UseLiteVocabEntry[];
  tokenizer = createUseLiteTokenizer(vocab);
}, 120_000);

/** Deterministic stress strings: the families notes §10 found tie permutations in, and more. */
function stressStrings(): string[] {
  const out: string[] = [];
  // Integers: small, round, repeated digits, the known '10222' tie.
  for (let i = 0; i <= 1200; i++) out.push(String(i));
  for (let i = 0; i < 400; i++) out.push(String((i * 7919 + 104729) % 1_000_003));
  out.push('10222', '00000', '100000', '1000000', '3.14159', '-42', '1,000,000', '2024-03-07', '+1 (555) 010-9999');
  // Repeated characters, 1..24 of each.
  const repeated = [
    '0',
    '1',
    '2',
    '9',
    '!',
    '?',
    '.',
    '-',
    '=',
    '*',
    '#',
    'a',
    'e',
    'z',
    'A',
    'ab',
    'la',
    'ha',
    ':',
    ')',
    ' ',
    '▁',
    'é',
    '中',
    '😀',
    '\t',
  ];
  for (const ch of repeated) for (let n = 1; n <= 24; n++) out.push(ch.repeat(n));
  out.push('!!!!!!!!!!!!', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '........', '????!!!!');
  // Times and dates.
  for (let h = 0; h < 24; h++)
    for (const m of ['00', '05', '15', '30', '45', '59']) out.push(`${h}:${m}`, `at ${h}:${m} pm`);
  out.push('12:30:00', '9:30am', '09:30', 'T09:30:00Z', '2025-06-02T09:30:00Z');
  // Colon and reserved-piece edge strings (notes §8 quirk (a), §9, §10).
  out.push(
    ':',
    '::',
    ':::',
    ':)',
    ':(',
    ':-)',
    ':):',
    ':)):',
    '):',
    '):)',
    '://',
    'http://x.y',
    ':30',
    ':00',
    ':3000',
    '::30',
    ' :',
    ' :)',
    '  :',
    ':) hi',
    'hi :)',
    'hi :(',
    'hi :-)',
    'a:b',
    'a: b',
    'note: 10:30',
    '▁:',
    '▁:)',
    '<s>',
    '</s>',
    '<s>hello</s>',
    'extra_token_id_1',
    'extra_token_id_2 extra_token_id_3',
    '\ufffd',
    'x\ufffdy',
  );
  // Whitespace, unknowns and normalisation.
  out.push(
    '',
    ' ',
    '  ',
    'a',
    ' a',
    'a ',
    '  a  b  ',
    '\n',
    'a\nb',
    'a\r\nb',
    'a\tb',
    '\u00a0x',
    'x\u2009y',
    'x\u3000y',
    'zero\u200bwidth',
    '😀😀 x 😀',
    'ﬁnancial ﬂow',
    'Ｆｕｌｌ　ｗｉｄｔｈ １２３',
    '①②③',
    'Ⅻ',
    'ｶﾀｶﾅ',
    'naïve café',
    'e\u0301',
    'Ωmega Ω',
    '東京都',
    'Привет мир',
    'مرحبا',
    '¯\\_(ツ)_/¯',
  );
  // Short word lists.
  const words = [
    'the',
    'The',
    'THE',
    'loop',
    'tool',
    'call',
    'search',
    'weather',
    'in',
    'Paris',
    'get_user_id',
    'fooBar',
    'JSON',
    'API',
  ];
  for (let i = 0; i < words.length; i++)
    for (let j = 0; j < words.length; j++) out.push(`${words[i]} ${words[j]}`, `${words[i]}${words[j]}`);
  return out;
}

const same = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

describe('USE-lite tokenizer vs the reference', () => {
  it('normalises like the reference', () => {
    expect(normalizeUseLite('')).toBe('');
    expect(normalizeUseLite(' a  b')).toBe('▁▁a▁▁b');
    expect(normalizeUseLite('ﬁ\u00a0x')).toBe('▁fi▁x');
  });

  it('matches the golden ids (notes §7)', () => {
    expect(tokenizer.encode('The quick brown fox jumps over the lazy dog.')).toEqual([
      34, 2280, 3744, 1394, 152, 2009, 7, 132, 9, 6266, 959, 6,
    ]);
    expect(tokenizer.encode('How old are you?')).toEqual([728, 446, 31, 19, 54]);
    expect(tokenizer.encode('')).toEqual([]);
  });

  it('exact ids on every port test text', () => {
    const texts = generateSentences();
    expect(texts.length).toBeGreaterThanOrEqual(200);
    const mismatched = texts.filter((t) => !same(tokenizer.encode(t), reference.tokenize(t)));
    console.info(`tokenizer parity on port texts: ${texts.length - mismatched.length}/${texts.length}`);
    expect(mismatched).toEqual([]);
  });

  it('exact ids on the stress strings (ties, colons, reserved pieces, unknowns)', () => {
    const strings = stressStrings();
    expect(strings.length).toBeGreaterThanOrEqual(2000);
    const mismatched = strings.filter((t) => !same(tokenizer.encode(t), reference.tokenize(t)));
    console.info(`tokenizer parity on stress strings: ${strings.length - mismatched.length}/${strings.length}`);
    expect(mismatched).toEqual([]);
    // The cases transformers.js's Unigram orders differently, pinned explicitly.
    for (const text of ['10222', '00000', '!!!!!!!!!!!!', ':):', ': hi'])
      expect(tokenizer.encode(text)).toEqual(reference.tokenize(text));
  });

  it('differs from the transformers.js tokenizer.json only where notes §10 says (informational)', async () => {
    const { PreTrainedTokenizer } = await import('@huggingface/transformers');
    const json = async (file: string): Promise<unknown> => JSON.parse(await readFile(join(MODEL_DIR, file), 'utf8'));
    const hf = new PreTrainedTokenizer(await json('tokenizer.json'), await json('tokenizer_config.json'));
    const strings = [...generateSentences(), ...stressStrings()];
    const differ = strings.filter((t) => !same(hf.encode(t, { add_special_tokens: false }), tokenizer.encode(t)));
    console.info(
      `transformers.js tokenizer.json differs on ${differ.length}/${strings.length}: ${JSON.stringify(differ.slice(0, 12))}`,
    );
    // Tie permutations only: the same ids in another order.
    for (const t of differ) {
      const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
      expect(sorted(hf.encode(t, { add_special_tokens: false }))).toEqual(sorted(tokenizer.encode(t)));
    }
    expect(differ).toContain('10222');
  });

  it('treats reserved pieces as text and collapses runs of unknowns', () => {
    const ids = tokenizer.encode('<s> extra_token_id_1 </s>');
    expect(ids.some((id) => id >= 1 && id < 6)).toBe(false);
    expect(tokenizer.encode('a\t\t\tb').filter((id) => id === 0)).toHaveLength(1);
  });

  it('keeps the last id of a repeated piece and has no astral pieces', () => {
    const ids = vocab.flatMap(([piece], id) => (piece === '”5' ? [id] : []));
    expect(ids.length).toBeGreaterThan(1);
    expect(tokenizer.encode('”5').at(-1)).toBe(reference.tokenize('”5').at(-1));
    // Lengths are walked back in code points; the reference uses UTF-16 length. Same here.
    expect(vocab.every(([piece]) => [...piece].length === piece.length)).toBe(true);
  });
});

describe('USE-lite tokenizer: only the text the ids come from is read', () => {
  const LIMIT = 128;

  it('the first ids of a text are exactly those of a whole read (port texts, stress strings, long joins)', () => {
    const texts = [...generateSentences(), ...stressStrings()];
    // Long texts: many sentences joined, so the 128th id falls deep inside them.
    for (let i = 0; i + 40 < texts.length; i += 40)
      texts.push(texts.slice(i, i + 40).join(' '), texts.slice(i, i + 40).join('  \t'));
    const mismatched = texts.filter(
      (t) => !same(tokenizer.encodePrefix(t, LIMIT).ids, tokenizer.encode(t).slice(0, LIMIT)),
    );
    expect(mismatched).toEqual([]);
    for (const k of [1, 2, 7, 33]) {
      const long = texts.at(-1) as string;
      expect(tokenizer.encodePrefix(long, k).ids).toEqual(tokenizer.encode(long).slice(0, k));
    }
  });

  it('a 7 MiB prompt: the same first 128 ids as a whole read, from a few KiB of it', () => {
    const sentence = 'Please check the weather in Oslo and then email Ana the summary of the quarterly report. ';
    const huge = sentence.repeat(Math.ceil((7 * 1024 * 1024) / sentence.length));
    const prefix = tokenizer.encodePrefix(huge, LIMIT);
    expect(prefix.ids).toEqual(tokenizer.encode(huge.slice(0, 20_000)).slice(0, LIMIT));
    expect(prefix.ids).toHaveLength(LIMIT);
    // The work is bounded by what is used, not by the prompt: about 128 words' worth read.
    expect(prefix.read).toBeLessThan(2 * 1024);
    expect(prefix.read).toBeGreaterThan(sentence.length);
  });

  it('a huge run without spaces (an unknown script, base64) is read at most maxTokens × 32 code points deep', () => {
    const japanese = '東京の今の天気を教えてください。'.repeat(500_000);
    const prefix = tokenizer.encodePrefix(japanese, LIMIT);
    expect(prefix.read).toBeLessThanOrEqual(LIMIT * USE_LITE_CODE_POINTS_PER_TOKEN);
    expect(prefix.known).toBe(0);
    expect(prefix.unknown).toBeGreaterThan(LIMIT);
    expect(prefix.ids).toEqual(tokenizer.encode(japanese.slice(0, prefix.read)));
    const base64 = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(200_000);
    const b = tokenizer.encodePrefix(base64, LIMIT);
    expect(b.read).toBeLessThanOrEqual(LIMIT * USE_LITE_CODE_POINTS_PER_TOKEN);
    expect(b.ids.length).toBeGreaterThan(0);
  });

  it('counts the words it reads and the letters it does not: an English prompt is read, a Japanese one is not', () => {
    const english = tokenizer.encodePrefix('What is the weather in Oslo right now?', LIMIT);
    expect(english.unknown).toBe(0);
    expect(english.known).toBe(english.ids.length - 1); // every piece but `?`, which counts for neither
    const mixed = tokenizer.encodePrefix('What is the weather in 東京 right now?', LIMIT);
    expect(mixed.unknown).toBe(2);
    expect(mixed.known).toBeGreaterThan(3 * mixed.unknown);
    const japanese = tokenizer.encodePrefix('東京の今の天気は？', LIMIT);
    expect(japanese).toMatchObject({ known: 0, unknown: 8 });
  });

  it('ids, numbers and symbols make no unread prompt look read; a script spelled letter by letter is not read', () => {
    // Digits, punctuation and emoji count for neither side; "ID", "OR", "ER" and "D" are all it reads.
    const ids = tokenizer.encodePrefix('ユーザーID 12345 の注文 ORDER-998877 をキャンセルして', LIMIT);
    expect(ids.known).toBeLessThanOrEqual(4);
    expect(ids.unknown).toBeGreaterThanOrEqual(12);
    expect(tokenizer.encodePrefix('12345 - 678 😀 !!', LIMIT)).toMatchObject({ known: 0, unknown: 0 });
    // The vocabulary holds some Cyrillic and Arabic letters one at a time: spelled out, not read.
    for (const text of ['Привет, какая погода в Москве?', 'مرحبا ما هو الطقس في القاهرة اليوم']) {
      const prefix = tokenizer.encodePrefix(text, LIMIT);
      expect(prefix.known, text).toBe(0);
      expect(prefix.unknown, text).toBeGreaterThan(15);
    }
    // A Latin-script language with an accent here and there is read.
    const german = tokenizer.encodePrefix('Wie ist das Wetter in München heute?', LIMIT);
    expect(german.known).toBeGreaterThan(8 * german.unknown);
  });
});
