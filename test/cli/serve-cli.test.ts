/**
 * `loopctl serve` as a user runs it (the bin, a real process, real HTTP, the real `openai` and
 * `@anthropic-ai/sdk` clients): the proxy on Node from the documented variables and flags, a
 * banner saying where each protocol goes, and a clean stop (exit 0) on SIGINT and SIGTERM.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamFixture } from '../proxy/upstream-fixture.js';
import { startUpstreamFixture } from '../proxy/upstream-fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'loopctl.mjs');
const TOKEN = 'serve-cli-token-0123456789';
// A folder without ./models/use-lite: what a new user's project looks like before `loopctl model`.
const work = mkdtempSync(join(tmpdir(), 'loopctl-serve-'));
let upstream: UpstreamFixture;
const children: ChildProcess[] = [];

beforeAll(async () => {
  upstream = await startUpstreamFixture();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await upstream.close();
  rmSync(work, { recursive: true, force: true });
});

/** The variables a test sets, over an environment without any of loopctl's. */
function cleanEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PROXY_|MODEL_|LOOPCTL_|PORT$|HOST$)/.test(name)),
  );
  return { ...env, ...vars };
}

interface Serving {
  child: ChildProcess;
  url: string;
  banner: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Start `loopctl serve ARGS` and wait for its banner. */
async function serve(args: string[], vars: Record<string, string>): Promise<Serving> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    cwd: work,
    env: cleanEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  await new Promise<void>((done, fail) => {
    const timer = setInterval(() => {
      if (output.includes('Ctrl-C stops it.')) {
        clearInterval(timer);
        done();
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        fail(new Error(`loopctl serve exited ${child.exitCode}:\n${output}`));
      }
    }, 50);
  });
  const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? '';
  return { child, url, banner: output, output: () => output, exited };
}

const tools = ['get_weather', 'send_email', 'stock_price'].map((name) => ({
  type: 'function' as const,
  function: { name, description: `The ${name.replace('_', ' ')} tool.`, parameters: { type: 'object' } },
}));

describe('loopctl serve', () => {
  it('serves the proxy from the documented variables, says where each protocol goes, and exits 0 on SIGINT', async () => {
    const server = await serve([], { PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL, LOOPCTL_TOKEN: TOKEN });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.banner).toContain(
      `POST ${server.url}/v1/chat/completions → ${upstream.openAIBaseURL}/chat/completions (key: none, set PROXY_OPENAI_API_KEY)`,
    );
    expect(server.banner).toContain(`POST ${server.url}/v1/responses → ${upstream.openAIBaseURL}/responses`);
    expect(server.banner).toMatch(/Anthropic Messages:.*not forwarded: no upstream/);
    expect(server.banner).toContain('auth: token');
    expect(server.banner).toContain('selector: keyword, k 8, policy auto; embedding model: none in ./models/use-lite');
    expect(server.banner).toContain('token: from LOOPCTL_TOKEN');
    expect(server.banner).not.toContain(TOKEN);

    const before = upstream.requests.length;
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'weather in Oslo' }],
      tools,
    });
    expect(reply.choices[0]?.message.content).toBeTruthy();
    expect(upstream.requests.slice(before).map((request) => request.path)).toEqual(['/v1/chat/completions']);

    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('loopctl serve: stopped');
  });

  it('flags win over the variables; --model-path selects with hybrid; SIGTERM stops it with 0 too', async () => {
    const server = await serve(
      [
        '--openai-base-url',
        upstream.openAIBaseURL,
        '--anthropic-base-url',
        upstream.anthropicBaseURL,
        '--model-path',
        join(root, 'models', 'use-lite'),
        '--host',
        '127.0.0.1',
      ],
      { PROXY_OPENAI_BASE_URL: upstream.deadURL, LOOPCTL_TOKEN: TOKEN, PROXY_ANTHROPIC_API_KEY: 'sk-ant-upstream' },
    );
    expect(server.banner).toContain(`→ ${upstream.openAIBaseURL}/chat/completions`);
    expect(server.banner).toContain(
      `POST ${server.url}/v1/messages → ${upstream.anthropicBaseURL}/v1/messages (key: PROXY_ANTHROPIC_API_KEY)`,
    );
    expect(server.banner).toContain('selector: hybrid, k 8, policy auto; embedding model: USE-lite from');
    expect(server.banner).not.toContain('sk-ant-upstream');

    const before = upstream.requests.length;
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: TOKEN, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'scripted',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    expect(message.content[0]?.type).toBe('text');
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'Say hello.' }] });
    const sent = upstream.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual(['/v1/messages', '/v1/chat/completions']);
    expect(sent[0]?.headers['x-api-key']).toBe('sk-ant-upstream');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('without LOOPCTL_TOKEN generates a token and prints it', async () => {
    const server = await serve([], { PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL });
    const token = /token \(generated; set LOOPCTL_TOKEN to choose one\): (\S+)/.exec(server.banner)?.[1];
    expect(token).toMatch(/^[\w-]{40,}$/);
    const models = await fetch(`${server.url}/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
    expect(models.status).toBe(200);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('without the optional peers installed it says what to install', () => {
    // The package alone (package.json, dist, bin) in a project with nothing else installed.
    const project = join(work, 'no-peers');
    for (const path of ['package.json', 'dist', 'bin'])
      cpSync(join(root, path), join(project, 'node_modules', 'loopctl', path), { recursive: true });
    const result = spawnSync(process.execPath, [join(project, 'node_modules/loopctl/bin/loopctl.mjs'), 'serve'], {
      cwd: project,
      encoding: 'utf8',
      env: cleanEnv({ PORT: '0' }),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^loopctl: loopctl serve needs (hono|@hono\/node-server) \(an optional peer of loopctl\): npm install hono @hono\/node-server\n$/,
    );
  });

  it('--help lists the flags and the variables', () => {
    const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const flag of ['--port', '--host', '--openai-base-url', '--anthropic-base-url', '--model-path'])
      expect(help.stdout).toContain(flag);
    expect(help.stdout).toContain('LOOPCTL_TOKEN');
    expect(spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' }).stdout).toContain('loopctl serve');
  });

  it('a model folder without a model, a bad port or an unknown flag: one line saying what to do', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [bin, 'serve', ...args], { cwd: work, encoding: 'utf8', env: cleanEnv({}) });
    const missing = run(['--port', '0', '--model-path', 'no-model-here']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(
      `${join(work, 'no-model-here')} does not exist; build the model there with npx loopctl model --out`,
    );
    const port = run(['--port', 'eighty']);
    expect(port.status).toBe(2);
    expect(port.stderr).toContain('--port must be a port number');
    const unknown = run(['--bogus']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
  });
});
