#!/usr/bin/env node
/**
 * `npm run build:model`: the checkout's `models/use-lite` (both fp32 and int8), built by the same
 * code as the published `loopctl model` (src/cli/model/, loaded from source with Vite's module
 * runner, so no library build is needed first). Skips when the folder is newer than its inputs
 * (the weights package and the builder's sources); `--force` rebuilds, `--out=DIR` writes elsewhere.
 *
 * @example
 * import { buildModel } from './scripts/build-model.mjs';
 * const { outDir, built } = await buildModel({ force: false });
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const builderDir = join(repoRoot, 'src', 'cli', 'model');

/** Default output folder (gitignored). */
export const DEFAULT_OUT_DIR = join(repoRoot, 'models', 'use-lite');

/** The builder module (src/cli/model/build-use-lite.ts). */
export const builder = (
  await runnerImport(join(builderDir, 'build-use-lite.ts'), { configFile: false, root: repoRoot, logLevel: 'error' })
).module;

/** Weights, vocabulary, licence, the builder's sources and this script: a change to any rebuilds. */
export function inputFiles(weightsDir = builder.findWeights([import.meta.url])) {
  const sources = readdirSync(builderDir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(builderDir, f));
  return [...builder.weightsInputFiles(weightsDir), ...sources, fileURLToPath(import.meta.url)];
}

const BOTH = ['fp32', 'int8'];

/** True when every output exists and is newer than every input. */
export function isUpToDate(outDir = DEFAULT_OUT_DIR) {
  const newestInput = Math.max(...inputFiles().map((f) => statSync(f).mtimeMs));
  return builder.outputFiles(BOTH).every((f) => {
    const p = join(outDir, f);
    return existsSync(p) && statSync(p).mtimeMs >= newestInput;
  });
}

/**
 * Builds the model folder (replacing an older build), or skips it when up to date.
 *
 * @param {{ force?: boolean, outDir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ outDir: string, built: boolean, files: Record<string, number> }>}
 */
export async function buildModel({ force = false, outDir = DEFAULT_OUT_DIR, log = () => {} } = {}) {
  if (!force && isUpToDate(outDir)) {
    log(`use-lite: up to date in ${outDir}`);
    const files = Object.fromEntries(builder.outputFiles(BOTH).map((f) => [f, statSync(join(outDir, f)).size]));
    return { outDir, built: false, files };
  }
  const weightsDir = builder.findWeights([import.meta.url]);
  const { files } = await builder.buildUseLite({ outDir, dtypes: BOTH, replace: true, weightsDir, log });
  return { outDir, built: true, files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outArg = process.argv.find((a) => a.startsWith('--out='));
  buildModel({
    force: process.argv.includes('--force'),
    outDir: outArg ? resolve(outArg.slice('--out='.length)) : DEFAULT_OUT_DIR,
    log: (line) => console.log(line),
  }).then(
    ({ files }) => {
      for (const [f, n] of Object.entries(files)) console.log(`  ${f}  ${(n / 1e6).toFixed(2)} MB`);
    },
    (error) => {
      console.error(error instanceof builder.ModelBuildError ? `build-model: ${error.message}` : error);
      process.exitCode = 1;
    },
  );
}
