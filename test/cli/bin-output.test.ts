/**
 * The built CLI as a user's shell runs it: output through a pipe arrives whole (a process that
 * exits before its pipe drains cuts it at 64 KiB), `--version` and per-command `--help` work,
 * and the help speaks of what a user has.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/loopctl.mjs');
const dir = mkdtempSync(join(tmpdir(), 'loopctl-bin-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Run the bin as `loopctl … | cat` would: its stdout a real pipe (a FIFO, as a shell makes for
 * `| jq`; Node's own child pipes are sockets, which do not show the cut), stderr read directly,
 * and the exit status the bin's.
 */
function loopctl(...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const pipeline = `"$@" | cat; exit "\${PIPESTATUS[0]}"`;
    const child = spawn('bash', ['-c', pipeline, 'loopctl', process.execPath, bin, ...argv], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('close', (code) =>
      done({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }),
    );
  });
}

describe('output through a pipe', () => {
  it('select --json over 64 KiB arrives whole and parses', async () => {
    const tools = Array.from({ length: 3000 }, (_, i) => ({
      name: `tool_${String(i).padStart(4, '0')}_with_a_fairly_long_descriptive_name`,
      description: `Tool number ${i}, which does one small thing.`,
      parameters: { type: 'object' },
    }));
    const file = join(dir, 'many-tools.json');
    writeFileSync(file, JSON.stringify(tools));
    const result = await loopctl('select', '--tools', file, '--selector', 'static', '--json', 'anything');
    expect(result.code, result.stderr).toBe(0);
    expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(64 * 1024);
    expect(result.stdout.endsWith('}\n')).toBe(true);
    const figures = JSON.parse(result.stdout);
    expect(figures.advertised).toHaveLength(3000);
    expect(figures.advertised.at(-1)).toBe('tool_2999_with_a_fairly_long_descriptive_name');
  });

  it('an error after output still exits 1 with its message', async () => {
    const result = await loopctl('select', '--tools', join(dir, 'no-such-file.json'), 'weather');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no-such-file.json');
  });
});

describe('--version and --help', () => {
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

  it.each([['--version'], ['-v'], ['version']])('%s prints the package version and exits 0', async (flag) => {
    const result = await loopctl(flag);
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    ['select', /^Usage: loopctl select --tools FILE/m, /--explain/],
    ['eval', /^Usage: loopctl eval --tools FILE --cases FILE/m, /--fail-under/],
    ['vectors', /^Usage: loopctl vectors --tools FILE --out FILE/m, /--kv-bulk/],
  ])('%s --help (and -h) prints that command’s usage and exits 0', async (command, usage, option) => {
    for (const flag of ['--help', '-h']) {
      const result = await loopctl(command, flag);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(usage);
      expect(result.stdout).toMatch(option);
    }
  });

  it('the help names nothing a user of the package lacks (no shared/eval)', async () => {
    for (const argv of [['--help'], ['eval', '--help'], ['select', '--help']]) {
      const result = await loopctl(...argv);
      expect(result.stdout).not.toMatch(/shared\/eval/);
    }
    expect((await loopctl('--help')).stdout).toMatch(/--version/);
  });
});
