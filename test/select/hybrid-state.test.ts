/**
 * The hybrid's derived state shipped in a vectors file (section hyb1): a matching list's first
 * turn seeds its BM25 documents, words and tool links from it (no link inference, no kind-link
 * embeds) and selects exactly as an unseeded hybrid does; a file for another list, a malformed
 * state, or a damaged, truncated or oversized section is refused with a reason and the hybrid
 * derives as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHybridVectorsFile } from '../../src/cli/hybrid-vectors.js';
import { readVectorsFile, withVectorsSections } from '../../src/embed/vectors-file.js';
import { checksumBytes } from '../../src/hash.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { HYBRID_STATE_TAG, readHybridState } from '../../src/select/hybrid-state.js';
import { countingEmbedder, ctx, mapCache } from '../embed/counting-embedder.js';

const root = join(import.meta.dirname, '../..');
// The dev registry, plus a handle no tool's words link to (a kind link serves it by meaning).
const WORKDESK = [
  ...(JSON.parse(readFileSync(join(root, 'test/fixtures/workdesk/tools.json'), 'utf8')) as ToolSchema[]),
  {
    name: 'book_appointment',
    description: 'Book an appointment with a doctor.',
    parameters: {
      type: 'object',
      properties: { doctorId: { type: 'string', description: 'The practitioner to see.' }, time: { type: 'string' } },
      required: ['doctorId', 'time'],
    },
  },
  {
    name: 'findPractitioners',
    description: 'Find practitioners and doctors by specialty near a city.',
    parameters: { type: 'object', properties: { specialty: { type: 'string' } }, required: ['specialty'] },
  },
] as ToolSchema[];
const PROMPTS = [
  'Assign the login bug ticket to Maria',
  'Reply to the last email from Carla and attach the Q3 report',
  'Book a meeting room for tomorrow at 10 and invite the design team',
  'Close the incident about the payment outage, then post a summary in #ops',
  'Book me an appointment with a dermatologist next Tuesday at 9',
];
const noSignal = { signal: new AbortController().signal };
// What kind links embed: "<parameter words>: <its description> (<tool name words>)".
const isKindInput = (text: string) => /^[a-z ]+: .*\([a-z ]+\)$/s.test(text);

let shipped: Uint8Array;
let plain: Uint8Array;

beforeAll(async () => {
  shipped = await buildHybridVectorsFile(countingEmbedder(), WORKDESK);
  plain = withVectorsSections(shipped, {});
});

/** Every prompt through one fresh hybrid over a fresh copy of the list; what it chose and did. */
async function run(vectors: Uint8Array | undefined, tools: readonly ToolSchema[] = WORKDESK) {
  const embedder = countingEmbedder();
  const selector = new HybridSelector(embedder, { cache: mapCache(), ...(vectors ? { vectors } : {}) });
  const list = [...tools];
  const outputs = [];
  for (const prompt of PROMPTS) outputs.push(await selector.select(ctx(prompt), list, noSignal));
  return { embedder, selector, outputs, list };
}

/** A copy of the shipped file with its state's JSON edited (the file's checksum redone). */
function editState(edit: (state: Record<string, unknown>) => unknown): Uint8Array {
  const read = readVectorsFile(shipped);
  if (!read.ok) throw new Error(read.reason);
  const state = JSON.parse(new TextDecoder().decode(read.file.sections.get(HYBRID_STATE_TAG)));
  const edited = edit(state) ?? state;
  const bytes = typeof edited === 'string' ? edited : JSON.stringify(edited);
  return withVectorsSections(shipped, { [HYBRID_STATE_TAG]: new TextEncoder().encode(bytes) });
}

describe('a vectors file shipping the hybrid state', () => {
  it('is version 2 with a hyb1 section; without sections the same file is version 1', () => {
    const read = readVectorsFile(shipped);
    expect(read.ok && read.file.sections.has(HYBRID_STATE_TAG)).toBe(true);
    expect(new DataView(shipped.buffer).getUint16(4, true)).toBe(2);
    expect(new DataView(plain.buffer).getUint16(4, true)).toBe(1);
    const old = readVectorsFile(plain);
    expect(old.ok && old.file.sections.size).toBe(0);
  });

  it('seeds the first turn: no link inference, no kind-link embeds, the same selections', async () => {
    const seeded = await run(shipped);
    const derived = await run(plain);
    expect(seeded.selector.derivedStats).toEqual({ seeded: 1, shipped: 1, inferred: 0 });
    expect(derived.selector.derivedStats).toEqual({ seeded: 0, shipped: 0, inferred: 1 });
    // The derived run embedded kind-link inputs; the seeded run embedded only prompts.
    expect(derived.embedder.texts.filter(isKindInput).length).toBeGreaterThan(0);
    expect(seeded.embedder.texts.filter(isKindInput)).toEqual([]);
    expect(seeded.selector.dense.stats).toMatchObject({ corpusEmbeds: 0, seededTexts: WORKDESK.length });
    // Byte-identical output: tools, reasons (scores, parts, neededBy) and warnings.
    expect(JSON.stringify(seeded.outputs)).toBe(JSON.stringify(derived.outputs));
    expect(seeded.outputs.some((output) => Object.values(output.reasons ?? {}).some((r) => r.neededBy))).toBe(true);
    // What the file ships is what the hybrid derives.
    const links = await derived.selector.toolLinks(derived.list);
    expect(await seeded.selector.toolLinks(seeded.list)).toEqual(links);
  });

  it('ranks with the shipped index: a word planted in a tool document is matched', async () => {
    const target = WORKDESK.findIndex((tool) => tool.name.includes('ticket'));
    const planted = editState((state) => {
      const words = state.words as string[];
      words.push('zzyzx');
      (state.documents as number[][])[target]?.push(words.length - 1);
    });
    const selector = new HybridSelector(countingEmbedder(), { cache: mapCache(), vectors: planted });
    const output = await selector.select(ctx('zzyzx please'), [...WORKDESK], noSignal);
    expect(output.warnings ?? []).toEqual([]);
    expect(output.reasons?.[(WORKDESK[target] as ToolSchema).name]?.matched).toEqual(['zzyzx']);
  });

  it('a file for another tool list is ignored with a reason, and the hybrid derives', async () => {
    const changed = WORKDESK.map((tool, i) => (i === 3 ? { ...tool, description: `${tool.description} Fast.` } : tool));
    const seeded = await run(shipped, changed);
    const derived = await run(plain, changed);
    expect(seeded.outputs[0]?.warnings).toContain(
      "vectors file's derived state ignored (built for other tools or another embedder (digest differs)); deriving it",
    );
    expect(seeded.selector.derivedStats).toEqual({ seeded: 0, shipped: 0, inferred: 1 });
    const noWarnings = (outputs: typeof seeded.outputs) =>
      JSON.stringify(
        outputs.map(({ warnings, ...rest }) => ({
          ...rest,
          warnings: (warnings ?? []).filter((w) => !w.includes('derived state')),
        })),
      );
    expect(noWarnings(seeded.outputs)).toBe(noWarnings(derived.outputs));
    // Another embedder id: same refusal (the key covers it).
    const read = readVectorsFile(shipped);
    const section = read.ok ? read.file.sections.get(HYBRID_STATE_TAG) : undefined;
    const other = await readHybridState(section ?? new Uint8Array(), WORKDESK, {
      id: 'another/model',
      dimensions: 256,
    });
    expect(other).toEqual({ ok: false, reason: 'built for other tools or another embedder (digest differs)' });
  });

  it.each([
    ['not JSON', () => editState(() => '{"format": "loopctl/hybrid'), /not JSON \(corrupt\)/],
    [
      'an index out of range',
      () => editState((s) => void (s.documents as number[][])[0]?.push(1e9)),
      /corrupt: documents: word/,
    ],
    [
      'a provider that is not the named tool',
      () =>
        editState((s) => {
          const needs = (s.links as { needs: [number, { providers: number[] }[]][] }).needs;
          const first = needs[0]?.[1][0];
          if (first) first.providers[0] = ((first.providers[0] as number) + 1) % WORKDESK.length;
        }),
      /corrupt: links: .*provider/,
    ],
    [
      'one list too few',
      () => editState((s) => void (s.names as unknown[]).pop()),
      /corrupt: names: not one list per tool/,
    ],
  ])('a state with %s is ignored with a reason, and the hybrid derives', async (_, make, reason) => {
    const seeded = await run(make());
    const derived = await run(plain);
    const warning = (seeded.outputs[0]?.warnings ?? []).find((w) => w.includes('derived state ignored'));
    expect(warning).toMatch(reason);
    expect(seeded.selector.derivedStats).toEqual({ seeded: 0, shipped: 0, inferred: 1 });
    expect(seeded.outputs.map((o) => o.tools.map((t) => t.name))).toEqual(
      derived.outputs.map((o) => o.tools.map((t) => t.name)),
    );
  });

  it('a truncated, bit-flipped or oversized section refuses the file, and the hybrid still ranks', async () => {
    const truncated = shipped.slice(0, shipped.byteLength - 100);
    const flipped = shipped.slice();
    flipped[shipped.byteLength - 50] = (flipped[shipped.byteLength - 50] as number) ^ 0x10;
    // A section length past the end of the file, the checksum made to match.
    const oversized = shipped.slice();
    const view = new DataView(oversized.buffer);
    const read = readVectorsFile(shipped);
    const sectionBytes = read.ok ? (read.file.sections.get(HYBRID_STATE_TAG) as Uint8Array).byteLength : 0;
    const header = oversized.byteLength - 4 - Math.ceil(sectionBytes / 4) * 4 - 8;
    expect(String.fromCharCode(...oversized.subarray(header, header + 4))).toBe(HYBRID_STATE_TAG);
    view.setUint32(header + 4, 0xfffffff0, true);
    view.setUint32(oversized.byteLength - 4, checksumBytes(oversized.subarray(0, oversized.byteLength - 4)), true);
    expect(readVectorsFile(oversized)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^truncated or oversized: section hyb1 claims 4294967280 bytes/),
    });
    for (const [bytes, reason] of [
      [truncated, /truncated|checksum/],
      [flipped, /checksum mismatch/],
      [oversized, /oversized: section hyb1/],
    ] as const) {
      const seeded = await run(bytes);
      expect((seeded.outputs[0]?.warnings ?? []).join('\n')).toMatch(reason);
      expect(seeded.selector.derivedStats).toMatchObject({ seeded: 0, inferred: 1 });
      expect(seeded.outputs[0]?.tools.length).toBeGreaterThan(0);
    }
  });

  it('a hybrid with declared links seeds its index but infers its links', async () => {
    const declared = new HybridSelector(countingEmbedder(), {
      cache: mapCache(),
      vectors: shipped,
      links: { declared: { [(WORKDESK[0] as ToolSchema).name]: [] } },
    });
    await declared.select(ctx(PROMPTS[0]), [...WORKDESK], noSignal);
    expect(declared.derivedStats).toEqual({ seeded: 1, shipped: 0, inferred: 1 });
  });
});
