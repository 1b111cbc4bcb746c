import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main, UsageError } from '../src/cli/main.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsFile = join(root, 'test/fixtures/tools.json');
const casesFile = join(root, 'test/fixtures/cases.jsonl');
const MODEL = ['--model', join(root, 'models/use-lite')];

async function run(...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line));
  return { code, lines };
}

// House phrases that name no tool: only learning connects them to their tools.
const LEARN = [
  { id: 'a', query: 'do the usual friday thing for the Paris office', expected: ['calendar_add_event'] },
  { id: 'b', query: 'do the usual friday thing for the Lyon office', expected: ['calendar_add_event'] },
  { id: 'c', query: 'run the morning ritual for Bob', expected: ['translate_text'] },
  { id: 'd', query: 'run the morning ritual for Ann', expected: ['translate_text', 'no_such_tool'] },
  { id: 'e', query: '', expected: ['send_email'] },
];
const EVAL = [
  { id: 'x', query: 'do the usual friday thing for the Rome office', expected: ['calendar_add_event'] },
  { id: 'y', query: 'run the morning ritual for Kim', expected: ['translate_text'] },
];

function jsonl(rows: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopctl-learn-'));
  const file = join(dir, 'cases.jsonl');
  writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n'));
  return file;
}

describe('loopctl eval --learn', () => {
  it('feeds the file as examples first, reports what it learned, and learning lifts recall', async () => {
    const learnFile = jsonl(LEARN);
    const evalFile = jsonl(EVAL);
    const args = [
      'eval',
      '--tools',
      toolsFile,
      '--cases',
      evalFile,
      '--split',
      'all',
      '--selector',
      'hybrid',
      '--k',
      '1',
      '--json',
      ...MODEL,
    ];
    const before = JSON.parse((await run(...args)).lines[0] as string);
    const after = JSON.parse((await run(...args, '--learn', learnFile)).lines[0] as string);
    expect(after.learned).toMatchObject({ learned: 4, unknownTools: 1, ignored: 1, total: 4 });
    expect(after.fullRecall).toBeGreaterThan(before.fullRecall);
    expect(after.fullRecall).toBe(1);
    // Nothing carries over to a later run without --learn: the examples are this run's only.
    const again = JSON.parse((await run(...args)).lines[0] as string);
    expect(again.fullRecall).toBe(before.fullRecall);
    expect(again.learned).toBeUndefined();
  }, 120_000);

  it('text output names the learned count', async () => {
    const { lines } = await run(
      'eval',
      '--tools',
      toolsFile,
      '--cases',
      casesFile,
      '--split',
      'all',
      '--selector',
      'embedding',
      '--learn',
      jsonl(LEARN),
      ...MODEL,
    );
    expect(lines.join('\n')).toMatch(/learned\s+4 examples \(0 duplicates, 1 unknown tools, 1 ignored\)/);
  }, 120_000);

  it.each([
    [['--selector', 'keyword', '--learn', casesFile], /selector "keyword" cannot learn/],
    [['--selector', 'hybrid', '--learn', '/no/such/file.jsonl'], /--learn: .*no such file/i],
  ])('%j is a UsageError', async (extra, message) => {
    const error = await main(['eval', '--tools', toolsFile, '--cases', casesFile, ...extra], () => {}).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});
