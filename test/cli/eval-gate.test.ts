/**
 * `loopctl eval` as a user's CI gate: a case where the selector fell open (every tool
 * advertised) is a hit for fullRecall but not a narrowing, so the report puts a "narrowed" full
 * recall (fell-open cases count as misses) next to it and lists those cases; a case expecting no
 * tool is an error in the file, not a free hit; a `needs` naming a tool the file lacks is a
 * warning; and `--fail-under` turns a figure into the exit code.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main, UsageError } from '../../src/cli/main.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const toolsFile = join(root, 'test/fixtures/tools.json');
const casesFile = join(root, 'test/fixtures/cases.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'loopctl-eval-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the CLI in-process, capturing what it prints and what it warns about. */
async function run(...argv: string[]): Promise<{ code: number; lines: string[]; warnings: string[] }> {
  const lines: string[] = [];
  const warnings: string[] = [];
  const code = await main(
    argv,
    (line) => lines.push(line),
    (line) => warnings.push(line),
  );
  return { code, lines, warnings };
}

const write = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

// The keyword selector on the fixture: 8 of 10 cases fully recalled, one of them only because
// nothing matched and every tool was advertised ("Schedule a meeting with Alice tomorrow").
const FELL_OPEN_ID = 'multi_turn_base_18-turn1';

describe('loopctl eval: fell-open cases', () => {
  it('--json reports narrowedFullRecall (fell-open cases as misses) beside fullRecall, and lists them', async () => {
    const { code, lines } = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(lines[0]!);
    expect(report.fullRecall).toBeCloseTo(0.8, 12);
    expect(report.narrowedFullRecall).toBeCloseTo(0.7, 12);
    expect(report.fellOpen).toBeCloseTo(0.1, 12);
    expect(report.fellOpenCases).toEqual([
      {
        id: FELL_OPEN_ID,
        query: 'Schedule a meeting with Alice tomorrow',
        expected: ['calendar_add_event'],
        reason: 'no tool matched the prompt',
      },
    ]);
  });

  it('the readable report shows the narrowed figure and names the fell-open cases', async () => {
    const { lines } = await run('eval', '--tools', toolsFile, '--cases', casesFile);
    const text = lines.join('\n');
    expect(text).toMatch(/fullRecall\s+0\.8\b/);
    expect(text).toMatch(/narrowed\s+0\.7 \(fell-open cases count as misses\)/);
    expect(text).toContain('fell open on 1 of 10 cases (every tool advertised, so not counted as narrowed hits):');
    expect(text).toContain(`${FELL_OPEN_ID}: "Schedule a meeting with Alice tomorrow"`);
    expect(text).toContain('reason     no tool matched the prompt');
  });

  it('the static selector (never narrows, never falls open) keeps fullRecall 1', async () => {
    const { lines } = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--selector', 'static', '--json');
    const report = JSON.parse(lines[0]!);
    expect(report.fullRecall).toBe(1);
    expect(report.narrowedFullRecall).toBe(1);
    expect(report.fellOpenCases).toEqual([]);
  });
});

describe('loopctl eval: the cases file', () => {
  it('a case expecting no tool is an error naming it, not a hit', async () => {
    const cases = write(
      'empty-expected.jsonl',
      [
        '{"id": "a", "query": "weather in Paris", "expected": ["get_weather"]}',
        '{"id": "b", "query": "hello there", "expected": []}',
      ].join('\n'),
    );
    const error = await run('eval', '--tools', toolsFile, '--cases', cases).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/empty-expected\.jsonl:2: case "b" expects no tool/);
  });

  it('a needs naming a tool the tools file lacks is a warning', async () => {
    const tools = write(
      'needs.json',
      JSON.stringify([
        { name: 'get_weather', description: 'Current weather for a city.', parameters: { type: 'object' } },
        {
          name: 'assign_task',
          description: 'Assign a task to a person.',
          parameters: { type: 'object' },
          needs: ['search_tasks'],
        },
      ]),
    );
    const cases = write('needs.jsonl', '{"id": "a", "query": "weather in Paris", "expected": ["get_weather"]}\n');
    const { code, warnings } = await run('eval', '--tools', tools, '--cases', cases);
    expect(code).toBe(0);
    expect(warnings).toContainEqual(expect.stringMatching(/assign_task needs "search_tasks", which .* does not have/));
  });
});

describe('loopctl eval --fail-under', () => {
  it('a bare number gates the narrowed full recall: exit 1 with a message when under', async () => {
    const under = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--fail-under', '0.8');
    expect(under.code).toBe(1);
    expect(under.warnings).toContainEqual(expect.stringMatching(/narrowedFullRecall 0\.7 is under --fail-under 0\.8/));
    // The report still comes out whole.
    expect(under.lines.join('\n')).toMatch(/narrowed\s+0\.7/);
    const over = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--fail-under', '0.7');
    expect(over.code).toBe(0);
  });

  it('metric=value gates that metric; several are all checked; --json too', async () => {
    const full = await run(
      'eval',
      '--tools',
      toolsFile,
      '--cases',
      casesFile,
      '--fail-under',
      'fullRecall=0.8',
      '--json',
    );
    expect(full.code).toBe(0);
    expect(JSON.parse(full.lines[0]!).fullRecall).toBeCloseTo(0.8, 12);
    const both = await run(
      'eval',
      ...['--tools', toolsFile, '--cases', casesFile],
      ...['--fail-under', 'fullRecall=0.8', '--fail-under', 'recall=0.9'],
    );
    expect(both.code).toBe(1);
    expect(both.warnings).toContainEqual(expect.stringMatching(/recall 0\.8333 is under --fail-under recall=0\.9/));
  });

  it.each([
    ['speed=0.5', /--fail-under: unknown metric "speed"/],
    ['fullRecall=abc', /--fail-under: "abc" is not a number from 0 to 1/],
    ['1.5', /--fail-under: "1.5" is not a number from 0 to 1/],
  ])('--fail-under %s is a usage error', async (value, message) => {
    const error = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--fail-under', value).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});
