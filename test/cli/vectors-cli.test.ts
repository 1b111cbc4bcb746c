/**
 * `loopctl vectors` and `loopctl select --vectors` with the real USE-lite model: the file the
 * command writes seeds a dense selector so a select embeds no tool text (`corpusEmbedded: 0`),
 * a bad file is refused with a warning and the select still answers, and the KV bulk file
 * holds the same bytes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, UsageError } from '../../src/cli/main.js';
import { progressBar } from '../../src/cli/progress-bar.js';
import { readVectorsFile, withVectorsSections } from '../../src/embed/vectors-file.js';
import { ensureModel, MODEL_DIR } from '../model/use-lite-setup.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const toolsFile = join(root, 'test/fixtures/tools.json');
const tools = JSON.parse(readFileSync(toolsFile, 'utf8')) as { name: string }[];
const dir = mkdtempSync(join(tmpdir(), 'loopctl-vectors-'));
const vectorsFile = join(dir, 'tools.lcv');
const bulkFile = join(dir, 'kv.json');
const PROMPT = 'What is the weather like in Paris?';

async function run(...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line));
  return { code, lines };
}
const select = async (...extra: string[]) => {
  const { code, lines } = await run(
    'select',
    '--tools',
    toolsFile,
    '--model',
    MODEL_DIR,
    '--no-cache',
    '--json',
    ...extra,
    PROMPT,
  );
  expect(code).toBe(0);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
};

let built: Record<string, unknown>;
beforeAll(async () => {
  await ensureModel();
  const { code, lines } = await run(
    'vectors',
    '--tools',
    toolsFile,
    '--model',
    MODEL_DIR,
    '--out',
    vectorsFile,
    '--kv-bulk',
    bulkFile,
    '--json',
  );
  expect(code).toBe(0);
  built = JSON.parse(lines[0] as string);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loopctl vectors', () => {
  it('writes a verified f16 file for USE-lite with one entry per tool text, and reports its size', () => {
    const bytes = new Uint8Array(readFileSync(vectorsFile));
    const read = readVectorsFile(bytes, { embedderId: 'use-lite/int8/mean/tok2', dimensions: 512 });
    expect(read.ok).toBe(true);
    expect(read.ok && read.file).toMatchObject({ count: tools.length, precision: 'f16', dimensions: 512 });
    expect(built).toMatchObject({
      tools: tools.length,
      texts: tools.length,
      embedder: 'use-lite/int8/mean/tok2',
      precision: 'f16',
      bytes: bytes.byteLength,
    });
    // Node's default runtime: onnxruntime-node (a devDependency here), on every core up to 4.
    expect(built).toMatchObject({ device: 'native', threads: Math.max(1, Math.min(4, availableParallelism())) });
    // 8-byte key + 512 half floats per text, plus a small header; then the hybrid's derived
    // state (section hyb1: documents, actions, tool links), a few hundred bytes per tool.
    expect(read.ok && read.file.sections.has('hyb1')).toBe(true);
    const vectorsOnly = withVectorsSections(bytes, {}).byteLength;
    expect((vectorsOnly / tools.length) * 1000).toBeGreaterThan(1_032_000);
    expect((vectorsOnly / tools.length) * 1000).toBeLessThan(1_040_000);
    expect(bytes.byteLength - vectorsOnly).toBeLessThan(tools.length * 1000);
  });

  it('--kv-bulk writes a `wrangler kv bulk put` file holding the same bytes under the default key', () => {
    const entries = JSON.parse(readFileSync(bulkFile, 'utf8'));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ key: 'loopctl:vectors-file', base64: true });
    expect(Buffer.from(entries[0].value, 'base64').equals(readFileSync(vectorsFile))).toBe(true);
  });

  it('--precision i8 is about half the f16 size', async () => {
    const small = join(dir, 'i8.lcv');
    const { lines } = await run(
      'vectors',
      '--tools',
      toolsFile,
      '--model',
      MODEL_DIR,
      '--out',
      small,
      '--precision',
      'i8',
      '--json',
    );
    const figures = JSON.parse(lines[0] as string);
    expect(figures.precision).toBe('i8');
    // The vectors alone (the derived state is the same size at either precision).
    const vectorsOnly = (path: string) => withVectorsSections(new Uint8Array(readFileSync(path)), {}).byteLength;
    expect(vectorsOnly(small) / vectorsOnly(vectorsFile)).toBeLessThan(0.55);
    const human = await run('vectors', '--tools', toolsFile, '--model', MODEL_DIR, '--out', small);
    expect(human.lines[0]).toMatch(
      new RegExp(
        `^wrote .*i8.lcv: ${tools.length} tool texts × 512 \\(f16, use-lite/int8/mean/tok2\\), [\\d.]+ KB \\([\\d.]+ KB per 1,000 tools\\) in [\\d.]+ s \\([\\d.]+ tools/s, native, \\d+ threads?\\)$`,
      ),
    );
  });
});

describe('loopctl select --vectors', () => {
  it('corpusEmbedded is 0 with the file, every tool text without it, and always present', async () => {
    const seeded = await select('--selector', 'embedding', '--vectors', vectorsFile);
    const plain = await select('--selector', 'embedding');
    expect(seeded.corpusEmbedded).toBe(0);
    expect(seeded.warnings).toEqual([]);
    expect(plain.corpusEmbedded).toBe(tools.length);
    expect(seeded.advertised).toEqual(plain.advertised);
    expect(seeded.advertised).toContain('get_weather');
    const keyword = await select();
    expect(keyword.corpusEmbedded).toBe(0);
    const hybrid = await select('--selector', 'hybrid', '--vectors', vectorsFile);
    expect(hybrid.corpusEmbedded).toBe(0);
    expect(hybrid.advertised).toContain('get_weather');
  }, 60_000);

  it('a file built on WASM seeds a native select and vice versa (--device): corpusEmbedded 0, same tools', async () => {
    const wasmFile = join(dir, 'wasm.lcv');
    const { code, lines } = await run(
      'vectors',
      '--tools',
      toolsFile,
      '--model',
      MODEL_DIR,
      '--out',
      wasmFile,
      '--device',
      'wasm',
      '--threads',
      '1',
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ device: 'wasm', threads: 1, embedder: built.embedder });
    const nativeSeededByWasm = await select('--selector', 'hybrid', '--device', 'native', '--vectors', wasmFile);
    const wasmSeededByNative = await select('--selector', 'hybrid', '--device', 'wasm', '--vectors', vectorsFile);
    for (const figures of [nativeSeededByWasm, wasmSeededByNative]) {
      expect(figures.corpusEmbedded).toBe(0);
      expect(figures.warnings).toEqual([]);
    }
    expect(nativeSeededByWasm.advertised).toEqual(wasmSeededByNative.advertised);
    expect(nativeSeededByWasm.advertised).toContain('get_weather');
  }, 60_000);

  it.each([
    ['truncated', (b: Buffer) => b.subarray(0, b.length - 100), /truncated/],
    ['bit-flipped', (b: Buffer) => Buffer.from(b.map((v, i) => (i === 3000 ? v ^ 8 : v))), /checksum mismatch/],
    ['missing', undefined, /could not be read \(ENOENT/],
  ])(
    'a %s file: refused with a warning, every tool text embedded, exit 0',
    async (_, damage, reason) => {
      const bad = join(dir, `bad-${_}.lcv`);
      if (damage) writeFileSync(bad, damage(readFileSync(vectorsFile)));
      const figures = await select('--selector', 'embedding', '--vectors', bad);
      expect(figures.corpusEmbedded).toBe(tools.length);
      expect(figures.fellOpen).toBeNull();
      expect(figures.warnings).toHaveLength(1);
      expect(figures.warnings[0]).toMatch(reason);
      expect(figures.advertised).toContain('get_weather');
    },
    60_000,
  );

  it('prints the warning in the readable form', async () => {
    const bad = join(dir, 'bad-readable.lcv');
    writeFileSync(bad, 'not vectors');
    const { code, lines } = await run(
      'select',
      '--tools',
      toolsFile,
      '--model',
      MODEL_DIR,
      '--no-cache',
      '--selector',
      'embedding',
      '--vectors',
      bad,
      PROMPT,
    );
    expect(code).toBe(0);
    expect(lines.some((line) => /^warning: vectors file refused \(not a loopctl vectors file/.test(line))).toBe(true);
  }, 60_000);

  it.each([
    [['vectors', '--tools', toolsFile], /--out FILE is required/],
    [['vectors', '--out', 'x.lcv'], /--tools FILE is required/],
    [
      ['vectors', '--tools', toolsFile, '--out', 'x.lcv', '--precision', 'f8'],
      /--precision must be f16, f32 or i8, got "f8"/,
    ],
    [['vectors', '--tools', toolsFile, '--out', 'x.lcv', '--kv-key', ''], /--kv-key must be 1 to 512 bytes/],
    [['vectors', '--tools', toolsFile, '--out', 'x.lcv', '--threads', '0'], /--threads must be 1 to 64, got "0"/],
    [
      ['select', '--tools', toolsFile, '--vectors', 'x.lcv', 'weather'],
      /--vectors seeds the dense selectors .* not "keyword"/,
    ],
    [
      ['select', '--tools', toolsFile, '--selector', 'hybrid', '--device', 'webgpu', 'weather'],
      /--device must be auto, native or wasm, got "webgpu"/,
    ],
    [
      ['vectors', '--tools', toolsFile, '--out', 'x.lcv', '--device', 'gpu'],
      /--device must be auto, native or wasm, got "gpu"/,
    ],
  ])('%j is a UsageError', async (argv, message) => {
    const error = await main(argv, () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('progress bar', () => {
  it('draws in place on a TTY and ends the line; silent on a pipe', () => {
    let tty = '';
    const bar = progressBar({ isTTY: true, columns: 80, write: (text) => (tty += text) }, 'embedding');
    bar.update({ phase: 'corpus', done: 0, total: 40 });
    bar.update({ phase: 'corpus', done: 20, total: 40 });
    bar.update({ phase: 'corpus', done: 40, total: 40 });
    bar.done();
    const frames = tty.split('\r').filter(Boolean);
    expect(frames).toHaveLength(3);
    expect(frames[1]).toMatch(/^embedding \[#+\.+\] 20\/40 tools/);
    expect(frames[2]).toMatch(/^embedding \[#+\] 40\/40 tools/);
    expect(tty.endsWith('\n')).toBe(true);
    let piped = '';
    const quiet = progressBar({ isTTY: false, write: (text) => (piped += text) }, 'embedding');
    quiet.update({ phase: 'corpus', done: 1, total: 2 });
    quiet.done();
    expect(piped).toBe('');
  });
});
