/**
 * `loopctl select --explain` and `loopctl eval` from the real bin with the real model: the tool
 * links a hybrid follows are printed, declared `needs` in tools.json win over inference, and
 * eval splits full recall by how many tools a case expects.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureModel } from '../model/use-lite-setup.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/loopctl.mjs');
const workdesk = join(root, 'test/fixtures/workdesk');
const work = mkdtempSync(join(tmpdir(), 'loopctl-explain-'));
const loopctl = (...argv: string[]) => spawnSync(process.execPath, [bin, ...argv], { cwd: root, encoding: 'utf8' });

beforeAll(async () => {
  await ensureModel();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('loopctl select --explain', () => {
  it('prints why a lookup is there and every link the hybrid follows', () => {
    const result = loopctl(
      'select',
      '--tools',
      join(workdesk, 'tools.json'),
      '--selector',
      'hybrid',
      '--no-cache',
      '--explain',
      "Reassign all of Priya's onboarding tasks to Tom",
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^ *\d+ +search_tasks .*← needed first by assign_task/m);
    expect(result.stdout).toMatch(/^ {2}assign_task\.task_id ← search_tasks, list_my_tasks \(inferred\)$/m);
    expect(result.stdout).toMatch(
      /^ {2}create_task\.project_id ← list_projects \(inferred, optional: when the prompt names it\)$/m,
    );
  });

  it('declared needs in tools.json replace the inference, and unknown names are warned about', () => {
    const tools = JSON.parse(readFileSync(join(workdesk, 'tools.json'), 'utf8')) as {
      name: string;
      needs?: string[];
    }[];
    for (const tool of tools) {
      if (tool.name === 'assign_task') tool.needs = ['list_my_tasks', 'search_taskz'];
      if (tool.name === 'reply_to_email') tool.needs = [];
    }
    const file = join(work, 'tools.json');
    writeFileSync(file, JSON.stringify(tools));
    const result = loopctl(
      'select',
      '--tools',
      file,
      '--selector',
      'hybrid',
      '--no-cache',
      '--explain',
      '--json',
      "Reassign all of Priya's onboarding tasks to Tom",
    );
    expect(result.status).toBe(0);
    const figures = JSON.parse(result.stdout);
    expect(figures.links).toContainEqual({ tool: 'assign_task', providers: ['list_my_tasks'], source: 'declared' });
    expect(figures.links.some((link: { tool: string }) => link.tool === 'reply_to_email')).toBe(false);
    expect(figures.linkWarnings.join('\n')).toMatch(
      /"assign_task" needs "search_taskz", which is not registered; ignored/,
    );
    expect(figures.reasons.list_my_tasks.neededBy).toEqual(['assign_task']);

    writeFileSync(file, JSON.stringify([{ name: 'a', description: '', parameters: {}, needs: 'b' }]));
    const bad = loopctl('select', '--tools', file, '--selector', 'keyword', 'anything');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/\[0\]\.needs: must be a list of tool names/);
  });

  it('a selector without links says so', () => {
    const result = loopctl(
      'select',
      '--tools',
      join(workdesk, 'tools.json'),
      '--selector',
      'bm25',
      '--explain',
      'reply to the email from Mark',
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/selector bm25 follows no tool links/);
  });
});

describe('loopctl eval', () => {
  it('splits full recall by the number of expected tools', () => {
    const result = loopctl(
      'eval',
      '--tools',
      join(workdesk, 'tools.json'),
      '--cases',
      join(workdesk, 'cases.jsonl'),
      '--split',
      'all',
      '--selector',
      'bm25',
      '--json',
    );
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.byExpected['1'].cases + report.byExpected['2'].cases + report.byExpected['3+'].cases).toBe(
      report.cases,
    );
    expect(report.byExpected['2'].cases).toBeGreaterThan(20);
    const weighted = (['1', '2', '3+'] as const).reduce(
      (sum, group) => sum + report.byExpected[group].fullRecall * report.byExpected[group].cases,
      0,
    );
    expect(weighted / report.cases).toBeCloseTo(report.fullRecall, 10);
    const text = loopctl(
      'eval',
      '--tools',
      join(workdesk, 'tools.json'),
      '--cases',
      join(workdesk, 'cases.jsonl'),
      '--split',
      'all',
      '--selector',
      'bm25',
    );
    expect(text.stdout).toMatch(/by expected {4}1: [\d.]+ \(35\) {2}2: [\d.]+ \(42\) {2}3\+: [\d.]+ \(9\)/);
  });
});
