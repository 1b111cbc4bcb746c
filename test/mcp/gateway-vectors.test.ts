/**
 * Shipped vectors for the gateway: `loopctl mcp --build-vectors FILE` embeds the servers' tools
 * under the gateway's names, and `--vectors FILE` (or `"loopctl": {"vectors"}`, read relative to
 * the config) seeds the hybrid with it, so the warm-up embeds no tool text. Needs the offline
 * model (`npm run build:model`); skipped without it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/loopctl.mjs');
const ODD = fileURLToPath(new URL('./fixtures/odd-names-server.mjs', import.meta.url));
const MODEL = join(ROOT, 'models/use-lite');
const HAS_MODEL = existsSync(join(MODEL, 'vocab.json'));

let base: string;
let config: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'loopctl-gateway-vectors-'));
  config = join(base, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { 'odd.tools': { command: process.execPath, args: [ODD] } } }));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Run the CLI to its end: exit code, stdout, stderr. */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: base, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

/** Start the stdio gateway and return its "search index ready" log line (or another), then stop it. */
function readyLine(args: string[], pattern = /search index ready/): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--model-path', MODEL, ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const line = stderr.split('\n').find((text, i, all) => i < all.length - 1 && pattern.test(text));
      if (line) {
        child.stdin.end();
        resolve(line.replace(/^loopctl mcp: /, '').replace(/^.*?(search index ready)/, '$1'));
      }
    });
    child.once('exit', (code) => reject(new Error(`the gateway exited ${code} before it was ready: ${stderr}`)));
  });
}

describe.skipIf(!HAS_MODEL)('loopctl mcp --build-vectors and --vectors', () => {
  const file = () => join(base, 'gateway.lcv');

  it('writes a vectors file with every tool of the configured servers, under the gateway names', async () => {
    const built = await run(['mcp', '--config', config, '--model-path', MODEL, '--build-vectors', 'gateway.lcv']);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/wrote .*gateway\.lcv: 6 tools from 1 servers/);
    expect((await stat(file())).size).toBeGreaterThan(6 * 512);
  });

  it('seeds the search index from the file: the warm-up embeds no tool text', async () => {
    expect(await readyLine(['--config', config, '--vectors', file()])).toContain(
      `every tool's vector came from ${file()}`,
    );
    // The file also carries the hybrid's derived state for this very list: no links inferred.
    expect(await readyLine(['--config', config, '--vectors', file()], /derived state|tool links and lexical/)).toBe(
      `the hybrid's tool links and lexical index came from ${file()} too`,
    );
    // Without the file the same start embeds all six.
    expect(await readyLine(['--config', config])).toContain('embedded 6 tool texts');
  });

  it('reads "loopctl": {"vectors"} relative to the config file, and names a file that is not there', async () => {
    const withKey = join(base, 'with-vectors.json');
    await writeFile(
      withKey,
      JSON.stringify({
        mcpServers: { 'odd.tools': { command: process.execPath, args: [ODD] } },
        loopctl: { vectors: 'gateway.lcv' },
      }),
    );
    expect(await readyLine(['--config', withKey])).toContain("every tool's vector came from");
    const missing = await run(['mcp', '--config', config, '--vectors', 'nowhere.lcv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.lcv does not exist: build it with loopctl mcp --build-vectors');
  });
});
