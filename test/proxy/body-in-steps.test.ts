/**
 * Large bodies are parsed, decoded and encoded in steps (src/hono/proxy/body-in-steps.ts,
 * src/hono/read-body.ts): the results must be exactly those of one JSON.parse, one
 * TextDecoder.decode and one TextEncoder.encode, for valid and broken input alike, whatever
 * the step size. Random documents from a seeded generator, with small steps so every cut
 * lands somewhere awkward (inside escapes, between surrogate halves, inside keys).
 */
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../../src/hono/proxy/body-edits.js';
import { encodeEditedInSteps, encodeInSteps, parseObjectInSteps } from '../../src/hono/proxy/body-in-steps.js';
import { JsonDepthError } from '../../src/hono/proxy/json-nesting.js';
import { hasJsonControl } from '../../src/hono/proxy/json-spans.js';
import { type BodyReadError, decodeBody, decodeBodyInSteps } from '../../src/hono/read-body.js';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ATOMS = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\u0001',
  'é',
  '日本',
  '😀',
  '\ud83d',
  '\ude00',
  '\u2028',
  'u',
];

function randomString(next: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ATOMS[Math.floor(next() * ATOMS.length)];
  return out;
}

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 3 || roll < 0.35) return randomString(next, Math.floor(next() * 40));
  if (roll < 0.45) return Math.floor(next() * 1e6) / 100;
  if (roll < 0.5) return [true, false, null][Math.floor(next() * 3)];
  if (roll < 0.75) return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
  const record: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--)
    record[randomString(next, 1 + Math.floor(next() * 4))] = randomValue(next, depth + 1);
  return record;
}

// Escapes written several ways, and whitespace between tokens, as clients send them.
function randomText(next: () => number): string {
  const body = { model: 'm', messages: randomValue(next, 0), tools: randomValue(next, 1), extra: randomValue(next, 1) };
  const form = next();
  if (form < 0.33) return JSON.stringify(body, null, 2);
  const text = JSON.stringify(body);
  if (form < 0.66) return text;
  // Everything past ASCII as \uXXXX escapes (upper- or lower-case hex), as some clients send it.
  const upper = next() < 0.5;
  return text.replace(/[^\x20-\x7e]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

const noPause = () => Promise.resolve();
const parsedOrError = (text: string): unknown => {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : 'not an object';
  } catch {
    return 'invalid';
  }
};

describe('parseObjectInSteps', () => {
  it('gives what JSON.parse gives, key order and spans included, for any step', async () => {
    const next = random(29);
    for (let round = 0; round < 150; round++) {
      const text = randomText(next);
      const step = 1 + Math.floor(next() * 64);
      const parsed = await parseObjectInSteps(text, noPause, step);
      const expected = JSON.parse(text) as Record<string, unknown>;
      expect(parsed?.record).toEqual(expected);
      expect(JSON.stringify(parsed?.record)).toBe(JSON.stringify(expected));
      for (const [key, span] of parsed?.spans ?? []) {
        expect(JSON.parse(text.slice(span.start, span.end))).toEqual(expected[key]);
      }
    }
  });

  it('refuses exactly what JSON.parse refuses (or what is not an object)', async () => {
    const next = random(31);
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const valid = randomText(next);
      const at = Math.floor(next() * valid.length);
      const mutations = [
        valid.slice(0, at) + valid.slice(at + 1),
        valid.slice(0, at) + ['"', ',', '}', ']', '\\', '\u0002', 'x', ' '][Math.floor(next() * 8)] + valid.slice(at),
        `${valid} x`,
        `[${valid}]`,
      ];
      for (const text of mutations) {
        const expected = parsedOrError(text);
        const parsed = await parseObjectInSteps(text, noPause, 1 + Math.floor(next() * 32));
        if (typeof expected === 'string') {
          expect(parsed, text).toBeUndefined();
          refused++;
        } else expect(parsed?.record, text).toEqual(expected);
      }
    }
    expect(refused).toBeGreaterThan(500); // most mutations break the text: the check is not vacuous
  });

  it('keeps a repeated key last-value-first-place and __proto__ as an own member', async () => {
    const text = '{"a":1,"__proto__":{"polluted":true},"b":[1,2,3,4,5,6,7,8],"a":"again"}';
    const parsed = await parseObjectInSteps(text, noPause, 2);
    expect(Object.keys(parsed?.record ?? {})).toEqual(['a', '__proto__', 'b']);
    expect(parsed?.record.a).toBe('again');
    expect(Object.getPrototypeOf(parsed?.record)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(parsed?.record).toEqual(JSON.parse(text));
  });

  it('pauses between steps, and a long plain string costs no copy of the text', async () => {
    const prompt = 'weather in Oslo '.repeat(64 * 1024); // 1 MiB of plain text
    const text = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prompt }], tools: [] });
    let pauses = 0;
    const parsed = await parseObjectInSteps(text, async () => void pauses++, 64 * 1024);
    expect(pauses).toBeGreaterThanOrEqual(16);
    const messages = parsed?.record.messages as { content: string }[] | undefined;
    expect(messages?.[0]?.content).toBe(prompt);
  });
});

describe('parseObjectInSteps on deep nesting', () => {
  it('refuses nesting past maxDepth from the first pass: no stack overflow, no rescans', async () => {
    const levels = 600_000; // 1.2 MB: it overflowed the stack after 6 s of rescans
    const text = `{"model":"m","x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    const refused = await parseObjectInSteps(text, noPause).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JsonDepthError);
    expect((refused as JsonDepthError).message).toBe(
      'the request body nests arrays and objects more than 128 levels deep',
    );
    const shallow = await parseObjectInSteps('{"a":[[[1]]]}', noPause, 2, 3).catch((error: unknown) => error);
    expect(shallow).toBeInstanceOf(JsonDepthError);
    expect((await parseObjectInSteps('{"a":[[1]]}', noPause, 2, 3))?.record).toEqual({ a: [[1]] });
    // Brackets inside strings (escaped quotes before them included) are not nesting.
    const quoted = `{"a":"${'[\\"'.repeat(300)}","b":["[[[["]}`;
    expect((await parseObjectInSteps(quoted, noPause, 4, 2))?.record).toEqual(JSON.parse(quoted));
  });

  it('parses a body nested 127 deep, every level large, in time linear in its size', async () => {
    // 24 MB; each level's array holds 190 KB of whitespace and the next level. Scanned again at
    // every level, that took 6 s; once, a fraction of one.
    let nested = '1';
    for (let level = 0; level < 126; level++) nested = `[${' '.repeat(190_000)}${nested}]`;
    const text = `{"model":"m","x":${nested}}`;
    const started = performance.now();
    const parsed = await parseObjectInSteps(text, noPause);
    const ms = performance.now() - started;
    let value = parsed?.record.x;
    for (let level = 0; level < 126; level++) value = (value as unknown[])[0];
    expect(value).toBe(1);
    expect(ms).toBeLessThan(2000);
  }, 60_000);

  it('parses a large array of small values in runs, as JSON.parse does', async () => {
    const numbers = Array.from({ length: 300_000 }, (_, i) => (i % 7 === 0 ? { n: i, s: `${i}"[` } : i));
    const members = Object.fromEntries(numbers.map((value, i) => [`k${i % 1000}`, value]));
    const text = JSON.stringify({ model: 'm', numbers, members, empty: [], none: {} });
    const parsed = await parseObjectInSteps(text, noPause);
    expect(parsed?.record).toEqual(JSON.parse(text));
    expect(Object.keys(parsed?.record.members as object)).toEqual(Object.keys(JSON.parse(text).members));
  });
});

describe('encodeInSteps', () => {
  it('gives the bytes TextEncoder gives, for a text or its pieces cut anywhere', async () => {
    const next = random(37);
    const encoder = new TextEncoder();
    for (let round = 0; round < 300; round++) {
      const text = randomString(next, Math.floor(next() * 300));
      const cuts = [0, ...Array.from({ length: 4 }, () => Math.floor(next() * text.length)), text.length].sort(
        (a, b) => a - b,
      );
      const pieces = cuts.slice(1).map((end, i) => text.slice(cuts[i], end));
      const step = 1 + Math.floor(next() * 16);
      expect(await encodeInSteps(text, noPause, step)).toEqual(encoder.encode(text));
      expect(await encodeInSteps(pieces, noPause, step)).toEqual(encoder.encode(text));
    }
  });
});

describe('hasJsonControl', () => {
  it('finds each of U+0000 to U+001F anywhere in a long text, and nothing else', () => {
    const long = 'a "quoted" \\ é 日本 😀 \u007f \u2028 '.repeat(400); // over 4,096 characters
    expect(long.length).toBeGreaterThan(4096);
    expect(hasJsonControl(long)).toBe(false);
    const next = random(47);
    for (let code = 0; code < 0x20; code++) {
      const at = Math.floor(next() * long.length);
      const text = `${long.slice(0, at)}${String.fromCharCode(code)}${long.slice(at)}`;
      expect(hasJsonControl(text)).toBe(true);
      expect(hasJsonControl(text.slice(0, 100) + String.fromCharCode(code))).toBe(true); // the short path
    }
    expect(hasJsonControl(' ')).toBe(false);
  });
});

describe('encodeEditedInSteps', () => {
  it('gives the edited text as TextEncoder gives it, ASCII bodies (copied from their bytes) or not', async () => {
    const next = random(43);
    const encoder = new TextEncoder();
    let fromBytes = 0;
    let inPlace = 0;
    for (let round = 0; round < 300; round++) {
      const plain = next() < 0.5;
      const text = plain
        ? randomString(next, Math.floor(next() * 300)).replace(/[\u0080-\uffff]/g, 'x')
        : randomString(next, Math.floor(next() * 300));
      const bytes = next() < 0.2 ? encoder.encode(`\ufeff${text}`) : encoder.encode(text);
      if (bytes.byteLength === text.length) fromBytes++;
      const cuts = Array.from({ length: Math.floor(next() * 4) * 2 }, () => Math.floor(next() * (text.length + 1)));
      cuts.sort((a, b) => a - b);
      const edits = [];
      for (let i = 0; i < cuts.length; i += 2)
        edits.push({ start: cuts[i] as number, end: cuts[i + 1] as number, text: randomString(next, 5) });
      edits.reverse(); // in any order, as the proxy gathers them
      const step = 1 + Math.floor(next() * 16);
      const expected = encoder.encode(applyEdits(text, edits));
      const own = bytes.subarray(bytes.byteLength - encoder.encode(text).byteLength);
      const sent = await encodeEditedInSteps(text, own, edits, noPause, step);
      expect(sent).toEqual(expected);
      if (sent.buffer === own.buffer) inPlace++;
      // A BOM in front: the bytes are not the text's one for one, so the text is encoded (the
      // call above may have edited the bytes after the BOM: this one must not read them).
      if (bytes.byteLength !== encoder.encode(text).byteLength)
        expect(await encodeEditedInSteps(text, bytes, edits, noPause, step)).toEqual(expected);
    }
    expect(fromBytes).toBeGreaterThan(50); // the copy path ran, not only the encoding one
    expect(inPlace).toBeGreaterThan(20); // and within the client's own buffer
  });

  it('copies an ASCII body from its bytes, pausing between steps', async () => {
    const text = `{"messages":"${'a'.repeat(1000)}","tools":[1,2,3]}`;
    const bytes = new TextEncoder().encode(text);
    const tools = text.indexOf('[1,2,3]');
    let pauses = 0;
    const sent = await encodeEditedInSteps(
      text,
      bytes,
      [{ start: tools, end: tools + 7, text: '["é"]' }],
      async () => {
        pauses++;
      },
      100,
    );
    expect(new TextDecoder().decode(sent)).toBe(text.replace('[1,2,3]', '["é"]'));
    expect(pauses).toBe(10); // 1,031 bytes copied or encoded, 100 at a time
  });
});

describe('decodeBodyInSteps', () => {
  it('gives the text decodeBody gives, and refuses what it refuses', async () => {
    const next = random(41);
    const encoder = new TextEncoder();
    for (let round = 0; round < 300; round++) {
      const bytes = encoder.encode(
        `${next() < 0.3 ? '\ufeff' : ''}${randomString(next, Math.floor(next() * 200))}\ufeff`,
      );
      if (next() < 0.5 && bytes.length > 0) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
      const piece = 1 + Math.floor(next() * 16);
      let expected: string | BodyReadError;
      try {
        expected = decodeBody(bytes);
      } catch (error) {
        expected = error as BodyReadError;
      }
      const got = await decodeBodyInSteps(bytes, noPause, piece).catch((error: unknown) => error);
      if (typeof expected === 'string') expect(got).toBe(expected);
      else expect(got).toMatchObject({ name: 'BodyReadError', reason: 'not_utf8' });
    }
  });
});
