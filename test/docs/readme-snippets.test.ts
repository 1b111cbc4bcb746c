/**
 * The README's "Ten lines" and "A complete run" examples, run as a new user runs them: a Node
 * process importing the built package, with no model server listening. A first run must say
 * what went wrong (the refused connection and where), not exit 0 in silence. (The runs against
 * a working server are the consumer check's: scripts/consumer-check.mjs.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'loopctl-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first `ts` block of one README section. */
function firstBlock(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(start, end === -1 ? undefined : end))?.[1];
  if (code === undefined) throw new Error(`README "## ${heading}" has no ts block`);
  return code;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** Run a snippet with `loopctl` bound to the build and the model server moved to `baseURL`. */
function runSnippet(name: string, code: string, baseURL: string) {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    code
      .replaceAll("from 'loopctl'", `from '${pathToFileURL(join(root, 'dist/index.js')).href}'`)
      .replaceAll('http://127.0.0.1:11434/v1', baseURL)
      .replace(/openAIChatClient\(\{ (?!baseURL)/g, `openAIChatClient({ baseURL: '${baseURL}', `),
  );
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [file], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('the README examples with no model server', () => {
  let port: number;
  let baseURL: string;
  beforeAll(async () => {
    port = await closedPort();
    baseURL = `http://127.0.0.1:${port}/v1`;
  });

  it('"Ten lines" fails with the reason: the connection to the server was refused', async () => {
    const run = await runSnippet('ten-lines', firstBlock('Ten lines'), baseURL);
    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expect(run.stderr).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    expect(run.stderr).toContain(baseURL);
  });

  it('"A complete run" prints the error event, not only "error after 1 turn(s)"', async () => {
    const run = await runSnippet('complete-run', firstBlock('A complete run against a local model'), baseURL);
    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expect(run.stdout).toContain('error after 1 turn(s)');
    expect(run.stderr).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    expect(run.stderr).toContain(baseURL);
  });
});
