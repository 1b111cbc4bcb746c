/**
 * The demo registry's shipped vectors (scripts/demo-vectors.mjs, used by the demo build and
 * `npm start --prepare`): built with the real model, covering every demo tool text, rebuilt only
 * when they no longer cover the demo registry.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import { coversDemo } from '../../demo/demo-vectors.js';
import { encodeVectorsFile, readVectorsFile } from '../../src/embed/vectors-file.js';
import { toolText } from '../../src/text/words.js';
import { ensureModel } from '../model/use-lite-setup.js';

const dir = mkdtempSync(join(tmpdir(), 'loopctl-demo-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('ensureDemoVectors writes a USE-lite file covering every demo tool, and reuses it', async () => {
  await ensureModel();
  const { ensureDemoVectors } = (await import(new URL('../../scripts/demo-vectors.mjs', import.meta.url).href)) as {
    ensureDemoVectors(options: { outFile: string }): Promise<{ outFile: string; built: boolean; bytes: number }>;
  };
  const first = await ensureDemoVectors({ outFile: join(dir, 'a', 'demo.lcv') });
  const bytes = new Uint8Array(readFileSync(first.outFile));
  const read = readVectorsFile(bytes, { embedderId: 'use-lite/int8/mean/tok2', dimensions: 512 });
  expect(read.ok).toBe(true);
  if (!read.ok) return;
  expect(read.file.count).toBe(new Set(DEMO_TOOLS.map((t) => toolText(t.name, t.description))).size);
  for (const tool of DEMO_TOOLS) expect(read.file.vectorFor(toolText(tool.name, tool.description))).toHaveLength(512);
  expect(coversDemo(bytes)).toBe(true);

  const again = await ensureDemoVectors({ outFile: join(dir, 'b', 'demo.lcv') });
  expect(again.built).toBe(false);
  expect(readFileSync(again.outFile).equals(Buffer.from(bytes))).toBe(true);
}, 180_000);

it('coversDemo refuses a file missing a demo tool, or from another embedder', () => {
  const vector = new Float32Array(512).fill(0.1);
  const entries = DEMO_TOOLS.map((t) => ({ text: toolText(t.name, t.description), vector }));
  expect(coversDemo(encodeVectorsFile({ embedderId: 'use-lite/int8/mean/tok2', dimensions: 512 }, entries))).toBe(true);
  expect(
    coversDemo(encodeVectorsFile({ embedderId: 'use-lite/int8/mean/tok2', dimensions: 512 }, entries.slice(1))),
  ).toBe(false);
  expect(coversDemo(encodeVectorsFile({ embedderId: 'use-lite/fp32/mean/tok2', dimensions: 512 }, entries))).toBe(
    false,
  );
  expect(coversDemo(new Uint8Array(10))).toBe(false);
});
