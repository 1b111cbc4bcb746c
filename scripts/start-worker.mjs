#!/usr/bin/env node
/**
 * `npm start`: run the loopctl worker in workerd (`wrangler dev --env onnx`) on
 * http://127.0.0.1:8787, offline, serving the API and the demo page.
 *
 * On a fresh clone it first prepares what the worker needs (each step skipped when done):
 *   1. `.dev.vars` with a generated LOOPCTL_TOKEN (gitignored; wrangler dev reads it);
 *   2. the USE-lite model folder (`node scripts/build-model.mjs`, offline);
 *   3. the demo page in build/demo (`vite build -c vite.demo.config.ts`, which also copies the
 *      model folder and ORT runtime beside it, and the demo registry's vectors file);
 *   4. the demo registry's precomputed vectors, `build/demo/vectors/demo.lcv` (built once,
 *      cached; the page and the worker load them, so a first selection embeds only the prompt);
 *   5. build/demo/.assetsignore for files over Workers' 25 MiB asset limit.
 *
 * Flags: `--prepare` (steps 1–5 only, e.g. before `wrangler deploy`), `--light` (the
 * Workers-AI entry instead of in-worker ONNX), `--port N`, `--rebuild` (demo build again).
 *
 * Every documented variable the worker reads (LOOPCTL_*, MODEL_*, PROXY_*, CORS_ORIGINS,
 * ALLOWED_HOSTS, EMBEDDING_MODEL, VECTORS_TTL_SECONDS: `WORKER_VAR_NAMES` in
 * src/hono/config-var-names.ts) set in the environment is passed to the worker
 * (`wrangler dev --var`), over wrangler.toml and .dev.vars.
 *
 * @example
 *   node scripts/start-worker.mjs            # or: npm start
 *   node scripts/start-worker.mjs --prepare && npx wrangler deploy --env onnx
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const publicDir = join(root, 'build', 'demo');
const modelDir = join(root, 'models', 'use-lite');
const MAX_ASSET_BYTES = 25 * 1024 * 1024;
/** What the in-worker embedder reads through the assets binding. */
export const WORKER_MODEL_FILES = ['vocab.json', 'config.json', 'onnx/model_quantized.onnx'];

/** Environment for wrangler: no telemetry, no Request.cf download, no prompts. */
export const OFFLINE_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  // The banner runs an npm update check.
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_LOG: 'info',
  CI: '1',
};

/**
 * The documented variables an environment may set for `npm start` (see docs/worker.md): the
 * worker's own list, read from its source (src/hono/config-var-names.ts, type-checked against
 * the variable interfaces), so a new variable reaches `wrangler dev` without being listed twice.
 */
export const PASSED_VARS = await workerVarNames();

async function workerVarNames() {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    entryPoints: [join(root, 'src', 'hono', 'config-var-names.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'warning',
  });
  const code = Buffer.from(outputFiles[0].text).toString('base64');
  return (await import(`data:text/javascript;base64,${code}`)).WORKER_VAR_NAMES;
}

/**
 * Bundle the `--env onnx` worker exactly as `wrangler deploy --dry-run` builds it, into `outdir`,
 * and return Miniflare's module options for it (listed explicitly: Miniflare's import scanner
 * rejects onnxruntime-web's computed dynamic imports). Throws with wrangler's output on failure.
 */
export function buildOnnxWorker({ outdir, assets }) {
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const built = spawnSync(
    process.execPath,
    [wrangler, 'deploy', '--dry-run', '--env', 'onnx', '--outdir', outdir, '--assets', assets],
    {
      cwd: root,
      env: { ...process.env, ...OFFLINE_ENV },
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`wrangler build failed:\n${built.stdout}${built.stderr}`);
  return {
    modulesRoot: outdir,
    modules: readdirSync(outdir)
      .filter((file) => file.endsWith('.js') || file.endsWith('.wasm'))
      .sort((a) => (a === 'workers-onnx.js' ? -1 : 1))
      .map((file) => ({ type: file.endsWith('.wasm') ? 'CompiledWasm' : 'ESModule', path: join(outdir, file) })),
  };
}

/**
 * `--var NAME:VALUE` for each documented variable set in `env`: wrangler dev reads only
 * wrangler.toml and .dev.vars, so without these `MODEL_BASE_URL=… npm start` would be ignored.
 * Command-line vars win over both files.
 */
export function varArgs(env = process.env) {
  const names = PASSED_VARS.filter((name) => typeof env[name] === 'string' && env[name].trim() !== '');
  return { names, args: names.flatMap((name) => ['--var', `${name}:${env[name]}`]) };
}

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : args[index + 1];
};

/** Make sure `.dev.vars` holds a LOOPCTL_TOKEN; returns it. */
export function ensureDevToken(file = join(root, '.dev.vars')) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const match = /^LOOPCTL_TOKEN\s*=\s*"?([^"\r\n]+)"?\s*$/m.exec(text);
  if (match) return { token: match[1], generated: false };
  const token = randomBytes(32).toString('base64url');
  const prefix = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  writeFileSync(
    file,
    `${prefix}# Dev token for the local worker (npm start). Never commit this file.\nLOOPCTL_TOKEN="${token}"\n`,
    { mode: 0o600 },
  );
  return { token, generated: true };
}

function run(command, commandArgs, what) {
  console.log(`[start] ${what}: ${command} ${commandArgs.join(' ')}`);
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...OFFLINE_ENV },
  });
  return result.status === 0;
}

/** Build the model folder, the demo page, and the assets ignore list, as needed. */
export function prepareAssets({ rebuild = false } = {}) {
  if (!existsSync(join(modelDir, 'onnx', 'model_quantized.onnx'))) {
    if (!run(process.execPath, [join(root, 'scripts', 'build-model.mjs')], 'building the USE-lite model')) {
      console.warn('[start] model build failed: the embedding selector will answer 503');
    }
  }
  if (rebuild || !existsSync(join(publicDir, 'index.html'))) {
    const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    if (
      !run(
        process.execPath,
        [vite, 'build', '-c', 'vite.demo.config.ts', '--logLevel', 'warn'],
        'building the demo page',
      )
    ) {
      console.warn('[start] demo build failed: serving the API without the page');
    }
  }
  mkdirSync(publicDir, { recursive: true });
  if (!existsSync(join(publicDir, 'vectors', 'demo.lcv')) && existsSync(join(modelDir, 'vocab.json'))) {
    if (!run(process.execPath, [join(root, 'scripts', 'demo-vectors.mjs')], "building the demo registry's vectors")) {
      console.warn('[start] demo vectors failed: the first selection will embed the demo tools');
    }
  }
  // The in-worker embedder needs the int8 model beside the page, even if the demo build did not copy it.
  for (const file of WORKER_MODEL_FILES) {
    const from = join(modelDir, file);
    const to = join(publicDir, 'models', 'use-lite', file);
    if (existsSync(from) && !existsSync(to)) {
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
    }
  }
  writeAssetsIgnore();
}

/** Workers refuses assets over 25 MiB (the fp32 model, ORT's WebGPU runtimes): leave them out. */
function writeAssetsIgnore() {
  const large = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size > MAX_ASSET_BYTES)
        large.push(`/${relative(publicDir, path).split('\\').join('/')}`);
    }
  };
  walk(publicDir);
  const lines = ['# Written by scripts/start-worker.mjs: files over the Workers 25 MiB asset limit.', ...large.sort()];
  writeFileSync(join(publicDir, '.assetsignore'), `${lines.join('\n')}\n`);
  if (large.length) console.log(`[start] not served as assets (over 25 MiB): ${large.join(', ')}`);
}

async function main() {
  const { token, generated } = ensureDevToken();
  prepareAssets({ rebuild: flag('--rebuild') });
  if (flag('--prepare')) return;

  const port = Number(option('--port', process.env.PORT ?? '8787'));
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const wranglerArgs = [
    wrangler,
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--show-interactive-dev-session=false',
  ];
  if (!flag('--light')) wranglerArgs.push('--env', 'onnx');
  const passed = varArgs();
  wranglerArgs.push(...passed.args);
  const url = `http://127.0.0.1:${port}`;
  console.log(
    `[start] loopctl worker (workerd, ${flag('--light') ? 'light entry' : 'USE-lite in the worker'}) starting on ${url}`,
  );
  const child = spawn(process.execPath, wranglerArgs, {
    cwd: root,
    env: { ...process.env, ...OFFLINE_ENV },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let announced = false;
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (!announced && /Ready on/.test(String(chunk))) {
      announced = true;
      console.log('');
      console.log(`  loopctl API + demo page:  ${url}`);
      const shown = passed.names.includes('LOOPCTL_TOKEN') ? '$LOOPCTL_TOKEN' : token;
      console.log(
        passed.names.includes('LOOPCTL_TOKEN')
          ? '  token: LOOPCTL_TOKEN from the environment'
          : `  dev token (${generated ? 'generated into' : 'from'} .dev.vars): ${token}`,
      );
      console.log(`  try: curl -H "Authorization: Bearer ${shown}" ${url}/v1/tools`);
      if (passed.names.length > 0) console.log(`  from the environment: ${passed.names.join(', ')}`);
      if (!passed.names.includes('MODEL_BASE_URL')) {
        console.log(
          `  model: MODEL_BASE_URL from the environment, else wrangler.toml ${flag('--light') ? '[vars]' : '[env.onnx.vars]'} (default a local Ollama)`,
        );
      }
      console.log('');
    }
  });
  const stop = (signal) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
