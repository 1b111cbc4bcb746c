/**
 * Selectors seeded from a precomputed vectors file: a matching registry's first turn embeds
 * only the query; new or changed tools are embedded incrementally; every bad file (another
 * embedder, other dimensions, truncated, bit-flipped, unreachable, another registry, larger
 * than needed) is refused or trimmed with a warning, and the run still ranks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVectorsFile } from '../../src/embed/vectors-build.js';
import { encodeVectorsFile } from '../../src/embed/vectors-file.js';
import type { VectorsSource } from '../../src/embed/vectors-source.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { toolText } from '../../src/text/words.js';
import { bagOfWords, countingEmbedder, ctx, mapCache, registry } from '../embed/counting-embedder.js';

const PROMPT = 'What is the weather forecast for Paris?';
const noSignal = { signal: new AbortController().signal };
const all = registry();
let file: Uint8Array;

beforeAll(async () => {
  file = await buildVectorsFile(countingEmbedder(), all);
});

/** Select once with a fresh embedder and cache; what it embedded and what it said. */
async function firstTurn(
  vectors: VectorsSource | undefined,
  tools: readonly ToolSchema[] = all,
  embedder = countingEmbedder(),
) {
  const selector = new EmbeddingSelector(embedder, {
    topK: 3,
    cache: mapCache(),
    ...(vectors !== undefined ? { vectors } : {}),
  });
  const output = await selector.select(ctx(PROMPT), tools, noSignal);
  return { embedder, selector, output, selection: applySelection(output, tools), warnings: output.warnings ?? [] };
}

describe('EmbeddingSelector seeded from a vectors file', () => {
  it('a matching registry embeds only the query on the first turn, and ranks as if it had embedded', async () => {
    const seeded = await firstTurn(file);
    expect(seeded.embedder.texts).toEqual([PROMPT]);
    expect(seeded.selector.stats).toMatchObject({ corpusEmbeds: 0, seededTexts: all.length });
    expect(seeded.warnings).toEqual([]);
    const plain = await firstTurn(undefined);
    expect(plain.embedder.texts).toHaveLength(all.length + 1);
    expect(seeded.selection.names).toEqual(plain.selection.names);
    expect(seeded.selection.names).toContain('get_weather');
  });

  it('accepts an ArrayBuffer, a Response, and a function returning either (loaded once)', async () => {
    let calls = 0;
    for (const source of [
      file.slice().buffer,
      new Response(file.slice()),
      async () => {
        calls++;
        return new Response(file.slice());
      },
    ] as VectorsSource[]) {
      const { embedder, warnings, selector } = await firstTurn(source);
      expect(embedder.texts).toEqual([PROMPT]);
      expect(warnings).toEqual([]);
      // A new generation (a tool added) does not reload the file.
      await selector.select(ctx(PROMPT), [...all, tool('ping_host', 'Ping a host on the network.')], noSignal);
    }
    expect(calls).toBe(1);
  });

  it('embeds new and changed tools incrementally, with a warning naming how many', async () => {
    const changed = all.map((t) =>
      t.name === 'send_email' ? { ...t, description: 'Send a message by electronic mail.' } : t,
    );
    const tools = [...changed, tool('ping_host', 'Ping a host on the network.')];
    const { embedder, warnings, selector } = await firstTurn(file, tools);
    expect(embedder.texts.sort()).toEqual(
      [
        PROMPT,
        toolText('send_email', 'Send a message by electronic mail.'),
        toolText('ping_host', 'Ping a host on the network.'),
      ].sort(),
    );
    expect(selector.stats).toMatchObject({ seededTexts: all.length - 1, corpusEmbeds: 2 });
    expect(warnings.join('\n')).toMatch(/covers 9 of 11 tool texts; embedding the other 2/);
    expect(warnings.join('\n')).toMatch(/holds 1 entries this registry does not use/);
  });

  it('a file larger than the registry needs is trimmed, with a warning', async () => {
    const some = all.slice(0, 4);
    const { embedder, warnings, selector } = await firstTurn(file, some);
    expect(embedder.texts).toEqual([PROMPT]);
    expect(selector.stats.seededTexts).toBe(4);
    expect(warnings).toEqual([`vectors file holds ${all.length - 4} entries this registry does not use; ignored`]);
  });

  it('a file for a different registry: warning, everything embedded, same ranking', async () => {
    const other = await buildVectorsFile(countingEmbedder(), [
      tool('alpha', 'First letter.'),
      tool('beta', 'Second letter.'),
    ]);
    const { embedder, warnings, selection } = await firstTurn(other);
    expect(embedder.texts).toHaveLength(all.length + 1);
    expect(warnings.join('\n')).toMatch(/no entry for any of 10 tool texts \(built for another registry\?\)/);
    expect(selection.fellOpen).toBeUndefined();
    expect(selection.names).toContain('get_weather');
  });

  const refusals: Array<[string, () => VectorsSource, RegExp]> = [
    [
      'another embedder',
      () => encodeVectorsFile({ embedderId: 'other-model/fp32', dimensions: 256 }, sample(256)),
      /built by embedder "other-model\/fp32", this selector uses "test\/bow-256"/,
    ],
    [
      'other dimensions',
      () => encodeVectorsFile({ embedderId: 'test/bow-256', dimensions: 128 }, sample(128)),
      /128-dimension vectors, this embedder makes 256/,
    ],
    ['a truncated file', () => file.slice(0, Math.floor(file.byteLength / 2)), /truncated/],
    ['a bit-flipped file', () => flipped(file, Math.floor(file.byteLength * 0.7)), /checksum mismatch/],
    ['an empty file', () => new Uint8Array(0), /shorter than a header/],
    ['a JSON file', () => new TextEncoder().encode(JSON.stringify({ vectors: [[1, 2, 3]] })), /bad magic/],
    [
      'a source that throws',
      () => () => Promise.reject(new Error('disk on fire')),
      /could not be read \(disk on fire\)/,
    ],
    ['an HTTP error', () => new Response('nope', { status: 500 }), /could not be read \(HTTP 500/],
    ['not a source at all', () => 42 as never, /could not be read/],
  ];
  for (const [what, make, reason] of refusals) {
    it(`${what}: refused with a warning, the corpus embedded, the turn ranks`, async () => {
      const { embedder, warnings, selection, selector } = await firstTurn(make());
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^vectors file (refused|could not be read)/);
      expect(warnings[0]).toMatch(reason);
      expect(warnings[0]).toMatch(/embedding the corpus instead/);
      expect(embedder.texts).toHaveLength(all.length + 1);
      expect(selector.stats.seededTexts).toBe(0);
      expect(selection.fellOpen).toBeUndefined();
      expect(selection.names).toContain('get_weather');
      // The warning is said once, not on every turn.
      const again = await selector.select(ctx('send an email'), all, noSignal);
      expect(again.warnings ?? []).toEqual([]);
    });
  }

  it('a source that returns nothing (an unset KV key) is no file and no warning', async () => {
    const { embedder, warnings } = await firstTurn(() => undefined);
    expect(warnings).toEqual([]);
    expect(embedder.texts).toHaveLength(all.length + 1);
  });

  it('a row that cannot rank is embedded instead (a file with a valid checksum but a NaN scale)', async () => {
    const bytes = encodeVectorsFile(
      { embedderId: 'test/bow-256', dimensions: 256, precision: 'i8' },
      all.map((t) => ({
        text: toolText(t.name, t.description),
        vector: bagOfWords(toolText(t.name, t.description), 256),
      })),
    );
    // Re-sign a file whose first row scale is NaN, as a buggy writer might produce.
    const view = new DataView(bytes.buffer);
    const keys = 20 + Math.ceil('test/bow-256'.length / 4) * 4;
    view.setFloat32(keys + all.length * 8, Number.NaN, true);
    const { checksumBytes } = await import('../../src/hash.js');
    view.setUint32(bytes.byteLength - 4, checksumBytes(bytes.subarray(0, bytes.byteLength - 4)), true);
    const { embedder, selector } = await firstTurn(bytes);
    expect(embedder.texts).toHaveLength(2);
    expect(selector.stats).toMatchObject({ seededTexts: all.length - 1, corpusEmbeds: 1 });
  });

  it('withVectors gives a seeded copy; the seeded corpus is written to the cache', async () => {
    const cache = mapCache();
    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder, { cache }).withVectors(file);
    await selector.select(ctx(PROMPT), all, noSignal);
    expect(embedder.texts).toEqual([PROMPT]);
    expect(cache.sets).toBe(1);
    // Another process with the same cache and no file reads the generation back.
    const later = countingEmbedder();
    await new EmbeddingSelector(later, { cache: mapCache(cache.map) }).select(ctx(PROMPT), all, noSignal);
    expect(later.texts).toEqual([PROMPT]);
  });
});

describe('a vectors file over HTTP', () => {
  let url = '';
  let close: () => void = () => undefined;
  beforeAll(async () => {
    const server = createServer((req, res) => {
      if (req.url === '/tools.lcv') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
      else res.writeHead(404).end('not found');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('a URL is fetched and seeds the corpus; a 404 is a warning', async () => {
    const ok = await firstTurn(new URL('/tools.lcv', url));
    expect(ok.embedder.texts).toEqual([PROMPT]);
    const missing = await firstTurn(`${url}/missing.lcv`);
    expect(missing.warnings[0]).toMatch(/could not be read \(HTTP 404/);
    expect(missing.embedder.texts).toHaveLength(all.length + 1);
  });
});

describe('HybridSelector seeded from a vectors file', () => {
  it('its embedding half embeds only the query; a bad file keeps both halves ranking', async () => {
    const embedder = countingEmbedder();
    const hybrid = new HybridSelector(embedder, { vectors: file, cache: mapCache() });
    const output = await hybrid.select(ctx(PROMPT), all, noSignal);
    expect(embedder.texts).toEqual([PROMPT]);
    expect(hybrid.dense.stats.seededTexts).toBe(all.length);
    expect(applySelection(output, all).names).toContain('get_weather');

    const other = countingEmbedder();
    const fromSelector = new HybridSelector(new EmbeddingSelector(other), { vectors: flipped(file, 40) });
    const bad = await fromSelector.select(ctx(PROMPT), all, noSignal);
    expect(bad.warnings?.[0]).toMatch(/vectors file refused \(checksum mismatch/);
    expect(bad.fellOpen).toBeUndefined();
    expect(other.texts).toHaveLength(all.length + 1);
  });
});

function tool(name: string, description: string): ToolSchema {
  return { name, description, parameters: { type: 'object', properties: {} } };
}

function sample(dimensions: number) {
  return all.map((t) => ({
    text: toolText(t.name, t.description),
    vector: bagOfWords(toolText(t.name, t.description), dimensions),
  }));
}

function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const copy = bytes.slice();
  copy[at] = (copy[at] as number) ^ 0x04;
  return copy;
}
