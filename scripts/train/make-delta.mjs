#!/usr/bin/env node
/**
 * Encodes a training run's tuned tensors (RUN/weights.bin, from train.py) as the int8 weights
 * delta `loopctl model --variant tools` applies (src/cli/model/weights-delta.ts), and builds a
 * model folder from it with the same code the CLI runs, so what is evaluated is what ships.
 *
 *   node scripts/train/make-delta.mjs RUN [--delta FILE] [--folder DIR]
 *
 * Defaults: RUN/tools.delta and RUN/model (both dtypes). The shipped delta is
 * `node scripts/train/make-delta.mjs .cache/train/runs/all --delta assets/use-lite-tools.delta`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runnerImport } from 'vite';
import { baseWeights, build, readTensors, repoRoot } from './weights-io.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { delta: { type: 'string' }, folder: { type: 'string' } },
});
const run = resolve(positionals[0] ?? '');
const deltaFile = resolve(values.delta ?? join(run, 'tools.delta'));
const folder = resolve(values.folder ?? join(run, 'model'));
const delta = (
  await runnerImport(join(repoRoot, 'src/cli/model/weights-delta.ts'), {
    configFile: false,
    root: repoRoot,
    logLevel: 'error',
  })
).module;

const config = JSON.parse(readFileSync(join(run, 'config.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(repoRoot, 'scripts/train/data-manifest.json'), 'utf8'));
const trainedOn = manifest.filter((m) => m.registry in config.data);
const about = {
  data: trainedOn.map((m) => `${m.registry} (${m.source}, ${m.licence}, ${m.pairs} pairs)`).join('; '),
  excluded: config.exclude || 'nothing',
  recipe: Object.fromEntries(Object.entries(config).filter(([k]) => k !== 'data')),
  dataSha256: config.data,
  script: 'scripts/train/train.py (loopctl)',
};
const bytes = delta.encodeWeightsDelta(baseWeights(), readTensors(run), { variant: 'tools', about });
mkdirSync(dirname(deltaFile), { recursive: true });
writeFileSync(deltaFile, bytes);
console.log(
  `${deltaFile}: ${bytes.byteLength.toLocaleString('en-US')} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}`,
);

rmSync(folder, { recursive: true, force: true });
const { files } = await build.buildUseLite({
  outDir: folder,
  dtypes: ['int8', 'fp32'],
  variants: ['base', 'tools'],
  deltaFile,
  weightsDir: build.findWeights([import.meta.url]),
});
for (const [path, size] of Object.entries(files)) console.log(`  ${path}  ${size.toLocaleString('en-US')} bytes`);
