/**
 * Reading and writing USE-lite's trainable tensors as a flat float32 file plus a JSON index,
 * the format scripts/train/*.py use (`weights.bin` little-endian, `weights.json`
 * `{ tensors: [{ name, shape, offset }] }`, offsets in values). The builder modules are loaded
 * from source (src/cli/model/) with Vite's module runner, as scripts/build-model.mjs does.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '..', '..');
const modelDir = join(repoRoot, 'src', 'cli', 'model');
const load = async (file) =>
  (await runnerImport(join(modelDir, file), { configFile: false, root: repoRoot, logLevel: 'error' })).module;

export const build = await load('build-use-lite.ts');
export const tfjs = await load('tfjs-weights.ts');
export const tensors = await load('use-lite-tensors.ts');

/** The base model's weights, as the ONNX builder reads them. */
export function baseWeights() {
  return tfjs.collectWeights(tfjs.readTfjsWeights(build.findWeights([import.meta.url])));
}

/** Writes the trainable tensors of `W` to `dir/weights.bin` + `dir/weights.json`; returns the bin's sha256. */
export function writeTensors(W, dir) {
  const list = tensors.useLiteTensors(W);
  const total = list.reduce((n, t) => n + t.data.length, 0);
  const flat = new Float32Array(total);
  const index = [];
  let offset = 0;
  for (const t of list) {
    flat.set(t.data, offset);
    index.push({ name: t.name, shape: t.shape, offset });
    offset += t.data.length;
  }
  mkdirSync(dir, { recursive: true });
  const bytes = new Uint8Array(flat.buffer);
  writeFileSync(join(dir, 'weights.bin'), bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(dir, 'weights.json'), `${JSON.stringify({ values: total, sha256, tensors: index }, null, 1)}\n`);
  return sha256;
}

/** Reads `dir/weights.bin` + `weights.json` into a name → Float32Array map. */
export function readTensors(dir) {
  const index = JSON.parse(readFileSync(join(dir, 'weights.json'), 'utf8'));
  const buf = readFileSync(join(dir, 'weights.bin'));
  const flat = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  if (flat.length !== index.values)
    throw new Error(`${dir}/weights.bin holds ${flat.length} values, weights.json says ${index.values}`);
  const map = new Map();
  for (const t of index.tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    map.set(t.name, flat.slice(t.offset, t.offset + n));
  }
  return map;
}
