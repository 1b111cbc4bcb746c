import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { loadCases } from '../src/cli/eval-data.js';
import { main, UsageError } from '../src/cli/main.js';
import { splitKey, splitOf } from '../src/cli/split.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = join(root, 'test/fixtures');
const toolsFile = join(fixtures, 'tools.json');
const casesFile = join(fixtures, 'cases.jsonl');

interface FixtureTool {
  name: string;
  description: string;
  parameters: object;
}
interface FixtureCase {
  id: string;
  query: string;
  expected: string[];
}
const tools: FixtureTool[] = JSON.parse(readFileSync(toolsFile, 'utf8'));
const cases: FixtureCase[] = readFileSync(casesFile, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));
const allNames = tools.map((tool) => tool.name);

/**
 * What the keyword selector (default synonym table) advertises for each fixture case, worked
 * out by hand from the spec's rule. Tool words (split name + description, ≥ 3 chars, no stopwords):
 *   get_weather weather current conditions city      | read_file read file text disk
 *   write_file write file text disk                  | edit_file edit file apply patch existing
 *   grep_search grep search file contents regular expression
 *   list_directory list directory entries folder     | send_email send email message recipient
 *   calendar_add_event calendar add event            | translate_text translate text languages
 *   stock_price stock price latest trading ticker    | run_tests run tests project test suite report failures
 *   convert_currency convert currency amount money currencies
 */
const KEYWORD_BY_HAND: Record<string, { advertised: string[]; fellOpen?: true }> = {
  // weather paris
  'live_multiple_12-4-0': { advertised: ['get_weather'] },
  // open notes file + read (open→read): every tool with "file", and read_file
  'live_multiple_13-4-1': { advertised: ['read_file', 'write_file', 'edit_file', 'grep_search'] },
  // fix typo config + edit (fix→edit)
  'multi_turn_base_3-turn0': { advertised: ['edit_file'] },
  // look price aapl + search (phrase "look up")
  'multi_turn_base_3-turn2': { advertised: ['grep_search', 'stock_price'] },
  // email bob quarterly report
  simple_python_0: { advertised: ['send_email', 'run_tests'] },
  // schedule meeting alice tomorrow: nothing matches, fall open
  'multi_turn_base_18-turn1': { advertised: allNames, fellOpen: true },
  // say hello spanish email maria: translate_text is missed
  simple_python_13: { advertised: ['send_email'] },
  // show docs folder + read (show→read)
  'live_simple_0-0-0': { advertised: ['read_file', 'list_directory'] },
  // run unit tests fix whatever fails + edit
  'metatool-single-00001': { advertised: ['edit_file', 'run_tests'] },
  // check whether code compiles + verify, search: grep_search only; run_tests is missed
  'live_multiple_14-5-0': { advertised: ['grep_search'] },
};

/** Ids of the fixture cases on the dev side (computed with Python's hashlib from the README rule). */
const DEV_IDS = ['live_multiple_12-4-0', 'live_multiple_13-4-1', 'multi_turn_base_18-turn1', 'simple_python_13'];

/** Tokens of a tool as an OpenAI-style request carries it, counted with o200k_base. */
const tokensOf = (name: string): number => {
  const tool = tools.find((t) => t.name === name)!;
  return countTokens(
    JSON.stringify({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }),
  );
};
const sumTokens = (names: readonly string[]) => names.reduce((sum, name) => sum + tokensOf(name), 0);

/** The eval figures for a set of cases, from the hand-worked selections above. */
function expectedFigures(ids: readonly string[]) {
  let full = 0;
  let found = 0;
  let expectedTotal = 0;
  let advertised = 0;
  let advertisedTokens = 0;
  let fellOpen = 0;
  for (const id of ids) {
    const item = cases.find((c) => c.id === id)!;
    const hand = KEYWORD_BY_HAND[id]!;
    const hits = item.expected.filter((name) => hand.advertised.includes(name)).length;
    found += hits;
    expectedTotal += item.expected.length;
    if (hits === item.expected.length) full += 1;
    advertised += hand.advertised.length;
    advertisedTokens += sumTokens(hand.advertised);
    if (hand.fellOpen) fellOpen += 1;
  }
  const registryTokens = sumTokens(allNames);
  return {
    cases: ids.length,
    fullRecall: full / ids.length,
    recall: found / expectedTotal,
    meanAdvertised: advertised / ids.length,
    fellOpen: fellOpen / ids.length,
    registryTokens,
    meanAdvertisedTokens: advertisedTokens / ids.length,
    tokensSaved: 1 - advertisedTokens / ids.length / registryTokens,
  };
}

/** Run the CLI in-process, capturing what it prints (and what it warns about). */
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

const REPORT_KEYS = [
  'byExpected',
  'selector',
  'tokenCounter',
  'k',
  'cases',
  'fullRecall',
  'recall',
  'meanAdvertised',
  'fellOpen',
  'registryTokens',
  'meanAdvertisedTokens',
  'tokensSaved',
  'p50Ms',
  'p95Ms',
  'split',
  'leftOut',
  'misses',
  'narrowedFullRecall',
  'fellOpenCases',
];

describe('the fixture', () => {
  it('has 12 tools with unique names and 10 cases whose expected tools all exist', () => {
    expect(tools).toHaveLength(12);
    expect(new Set(allNames).size).toBe(12);
    expect(cases).toHaveLength(10);
    for (const item of cases) for (const name of item.expected) expect(allNames).toContain(name);
    expect(Object.keys(KEYWORD_BY_HAND).sort()).toEqual(cases.map((c) => c.id).sort());
  });
});

describe('loopctl select', () => {
  it.each(cases.map((c) => [c.id, c.query] as const))(
    '%s: --json advertises the hand-worked tools',
    async (id, query) => {
      const { code, lines } = await run('select', '--tools', toolsFile, '--json', query);
      expect(code).toBe(0);
      expect(lines).toHaveLength(1);
      const figures = JSON.parse(lines[0]!);
      const hand = KEYWORD_BY_HAND[id]!;
      expect(figures.advertised).toEqual(hand.advertised);
      expect(figures.fellOpen === null).toBe(!hand.fellOpen);
    },
  );

  it('--json reports the figures: counts, tokens, time, reasons', async () => {
    const { lines } = await run('select', '--tools', toolsFile, '--json', 'Open the notes file');
    const figures = JSON.parse(lines[0]!);
    expect(figures).toMatchObject({
      selector: 'keyword',
      advertised: ['read_file', 'write_file', 'edit_file', 'grep_search'],
      registered: 12,
      fellOpen: null,
      advertisedTokens: sumTokens(['read_file', 'write_file', 'edit_file', 'grep_search']),
      registryTokens: sumTokens(allNames),
    });
    expect(figures.ms).toBeGreaterThanOrEqual(0);
    expect(figures.reasons.read_file.matched).toEqual(['file', 'read']);
    expect(figures.reasons.write_file.matched).toEqual(['file']);
  });

  it('prints the advertised tools best first with their scores and matched words, then the figures', async () => {
    const { code, lines } = await run('select', '--tools', toolsFile, 'Look', 'up', 'the', 'price', 'of', 'AAPL');
    expect(code).toBe(0);
    const rows = lines
      .map((line) => /^(\d+)\s+(\S+)\s+(\d+\.\d{3})(?:\s+\[(.*)\])?$/.exec(line))
      .filter((m) => m !== null);
    expect(rows.map((m) => [m[1], m[2], m[4]])).toEqual([
      ['1', 'grep_search', 'search'],
      ['2', 'stock_price', 'price'],
    ]);
    // The scores are the selector's, best first.
    const json = JSON.parse(
      (await run('select', '--tools', toolsFile, '--json', 'Look up the price of AAPL')).lines[0]!,
    );
    expect(rows.map((m) => Number(m[3]))).toEqual(
      json.ranking.map((t: { score: number }) => Number(t.score.toFixed(3))),
    );
    const summary = lines.at(-1)!;
    const match = /^\n?2 of 12 tools advertised; (\d+) of (\d+) schema tokens; [\d.]+ ms$/.exec(summary);
    expect(match, summary).not.toBeNull();
    expect(Number(match![1])).toBe(sumTokens(['grep_search', 'stock_price']));
    expect(Number(match![2])).toBe(sumTokens(allNames));
  });

  it('ranks by score, not file order: a later tool that scores higher comes first; --json has the ranking too', async () => {
    // bm25 on "edit the file and apply the patch": edit_file (5th in the file) outscores read_file (2nd).
    const { lines } = await run(
      'select',
      '--tools',
      toolsFile,
      '--selector',
      'bm25',
      '--k',
      '3',
      'edit the file and apply the patch',
    );
    const ranked = lines.map((line) => /^\d+\s+(\S+)\s+(\d+\.\d{3})/.exec(line)).filter((m) => m !== null);
    expect(ranked[0]?.[1]).toBe('edit_file');
    const scores = ranked.map((m) => Number(m[2]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const json = JSON.parse(
      (
        await run(
          'select',
          '--tools',
          toolsFile,
          '--selector',
          'bm25',
          '--k',
          '3',
          '--json',
          'edit the file and apply the patch',
        )
      ).lines[0]!,
    );
    expect(json.ranking.map((t: { name: string }) => t.name)).toEqual(ranked.map((m) => m[1]));
    // `advertised` stays what the wire gets: registry order.
    expect(json.advertised).toEqual(allNames.filter((name) => json.advertised.includes(name)));
  });

  it('says when it fell open', async () => {
    const { lines } = await run('select', '--tools', toolsFile, 'Schedule a meeting with Alice tomorrow');
    // Nothing ranked: every tool, unnumbered, in registry order.
    expect(lines.filter((line) => allNames.includes(line.trim()))).toEqual(allNames);
    expect(lines.at(-1)).toMatch(/12 of 12 tools advertised \(fell open: no tool matched the prompt\)/);
  });

  it('runs the other selectors by name, honouring --k', async () => {
    const bm25 = JSON.parse(
      (await run('select', '--tools', toolsFile, '--selector', 'bm25', '--k', '2', '--json', 'stock price ticker'))
        .lines[0]!,
    );
    expect(bm25.selector).toBe('bm25');
    expect(bm25.advertised).toEqual(['stock_price']);
    expect(bm25.reasons.stock_price.score).toBeGreaterThan(0);
    const one = JSON.parse(
      (await run('select', '--tools', toolsFile, '--selector', 'bm25', '--k', '1', '--json', 'file disk text'))
        .lines[0]!,
    );
    expect(one.advertised).toHaveLength(1);
    const all = JSON.parse(
      (await run('select', '--tools', toolsFile, '--selector', 'static', '--json', 'weather')).lines[0]!,
    );
    expect(all.advertised).toEqual(allNames);
    expect(all.advertisedTokens).toBe(all.registryTokens);
  });
});

describe('loopctl eval', () => {
  it('--json prints ONE JSON object with the report keys and hand-computed figures (keyword, all cases)', async () => {
    const { code, lines } = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'all', '--json');
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    expect(Object.keys(report).sort()).toEqual([...REPORT_KEYS].sort());
    // By hand: 8 of 10 cases fully recalled (the Spanish and the compile cases miss), 10 of 12
    // expected tools advertised, 28 tools advertised over 10 cases, one fall-open.
    expect(report.selector).toBe('keyword');
    expect(report.k).toBeNull();
    expect(report.cases).toBe(10);
    expect(report.fullRecall).toBeCloseTo(0.8, 12);
    expect(report.recall).toBeCloseTo(10 / 12, 12);
    expect(report.meanAdvertised).toBeCloseTo(2.8, 12);
    expect(report.fellOpen).toBeCloseTo(0.1, 12);
    // Split by expected tools: 7 of the 8 one-tool cases (the compile case misses), 1 of the 2 two-tool ones.
    expect(report.byExpected).toMatchObject({
      '1': { cases: 8, fullRecall: 7 / 8 },
      '2': { cases: 2, fullRecall: 1 / 2 },
      '3+': { cases: 0, fullRecall: 0, meanAdvertised: 0 },
    });
    // Each group's mean advertised, weighted by its cases, is the report's.
    const { '1': one, '2': two } = report.byExpected;
    expect((one.meanAdvertised * one.cases + two.meanAdvertised * two.cases) / 10).toBeCloseTo(2.8, 12);
    const figures = expectedFigures(cases.map((c) => c.id));
    expect(report.registryTokens).toBe(figures.registryTokens);
    expect(report.meanAdvertisedTokens).toBeCloseTo(figures.meanAdvertisedTokens, 9);
    expect(report.tokensSaved).toBeCloseTo(figures.tokensSaved, 9);
    expect(report.p50Ms).toBeGreaterThanOrEqual(0);
    expect(report.p95Ms).toBeGreaterThanOrEqual(report.p50Ms);
  });

  it('--split dev and --split test keep their sides and say how many they left out; every case is the default', async () => {
    const devIds = DEV_IDS;
    const testIds = cases.map((c) => c.id).filter((id) => !devIds.includes(id));
    const devRun = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'dev', '--json');
    const dev = JSON.parse(devRun.lines[0]!);
    expect(devRun.warnings).toEqual([
      `--split dev scores 4 of the 10 cases in ${casesFile} (6 left out; --split all scores every case)`,
    ]);
    const test = JSON.parse(
      (await run('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'test', '--json')).lines[0]!,
    );
    const defaultRun = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--json');
    const byDefault = JSON.parse(defaultRun.lines[0]!);
    const all = JSON.parse(
      (await run('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'all', '--json')).lines[0]!,
    );
    expect(dev).toMatchObject({ split: 'dev', leftOut: 6 });
    expect(test).toMatchObject({ split: 'test', leftOut: 4 });
    expect(defaultRun.warnings).toEqual([]);
    expect(byDefault).toMatchObject({ split: 'all', leftOut: 0, cases: 10 });
    // dev: weather, notes file, schedule (fell open), Spanish (miss) → 3 of 4; 4 of 5 tools.
    expect(dev).toMatchObject({ cases: 4, fullRecall: 0.75, recall: 0.8, meanAdvertised: 4.5, fellOpen: 0.25 });
    // test: typo, AAPL, email, folder, unit tests, compile (miss) → 5 of 6; 6 of 7 tools.
    expect(test.cases).toBe(6);
    expect(test.fullRecall).toBeCloseTo(5 / 6, 12);
    expect(test.recall).toBeCloseTo(6 / 7, 12);
    expect(test.meanAdvertised).toBeCloseTo(10 / 6, 12);
    expect(test.fellOpen).toBe(0);
    for (const [report, ids] of [
      [dev, devIds],
      [test, testIds],
    ] as const) {
      const figures = expectedFigures(ids);
      expect(report.meanAdvertisedTokens).toBeCloseTo(figures.meanAdvertisedTokens, 9);
      expect(report.tokensSaved).toBeCloseTo(figures.tokensSaved, 9);
    }
    expect({ ...byDefault, p50Ms: 0, p95Ms: 0 }).toEqual({ ...all, p50Ms: 0, p95Ms: 0 });
  });

  it("a user's three-case file is scored whole: no case silently left out", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopctl-cases-'));
    try {
      const file = join(dir, 'mine.jsonl');
      writeFileSync(
        file,
        [
          '{"query":"What is the weather in Paris?","expected":["get_weather"]}',
          '{"query":"Open the notes file","expected":["read_file"]}',
          '{"query":"Email Bob","expected":["send_email"]}',
        ].join('\n'),
      );
      const { lines, warnings } = await run('eval', '--tools', toolsFile, '--cases', file);
      expect(lines[0]).toBe('selector keyword on 3 cases');
      expect(warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the missed cases: expected, missing and advertised (readable and --json)', async () => {
    const { lines } = await run('eval', '--tools', toolsFile, '--cases', casesFile);
    const at = lines.indexOf('\nmissed 2 of 10 cases (expected tools not all advertised):');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1)).toEqual([
      '  simple_python_13: "Say hello in Spanish and email it to Maria"',
      '    expected   translate_text, send_email',
      '    missing    translate_text',
      '    advertised send_email',
      '  live_multiple_14-5-0: "Check whether my code compiles"',
      '    expected   run_tests',
      '    missing    run_tests',
      '    advertised grep_search',
    ]);
    const report = JSON.parse((await run('eval', '--tools', toolsFile, '--cases', casesFile, '--json')).lines[0]!);
    expect(report.misses).toEqual([
      {
        id: 'simple_python_13',
        query: 'Say hello in Spanish and email it to Maria',
        expected: ['translate_text', 'send_email'],
        advertised: ['send_email'],
        missing: ['translate_text'],
      },
      {
        id: 'live_multiple_14-5-0',
        query: 'Check whether my code compiles',
        expected: ['run_tests'],
        advertised: ['grep_search'],
        missing: ['run_tests'],
      },
    ]);
  });

  it('warns when cases expect tools the tools file does not have', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopctl-cases-'));
    try {
      const file = join(dir, 'typo.jsonl');
      writeFileSync(file, '{"query":"weather in Oslo","expected":["get_wether"]}\n');
      const { warnings, lines } = await run('eval', '--tools', toolsFile, '--cases', file);
      expect(warnings).toEqual([
        `${file} expects tools that ${toolsFile} does not have, so those cases always miss: get_wether`,
      ]);
      expect(lines).toContain('    missing    get_wether');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('static advertises everything: full recall, nothing saved; k is null for k-free selectors', async () => {
    const { lines } = await run(
      'eval',
      '--tools',
      toolsFile,
      '--cases',
      casesFile,
      '--split',
      'all',
      '--selector',
      'static',
      '--json',
    );
    const report = JSON.parse(lines[0]!);
    expect(report).toMatchObject({
      selector: 'static',
      k: null,
      cases: 10,
      fullRecall: 1,
      recall: 1,
      meanAdvertised: 12,
      fellOpen: 0,
      registryTokens: sumTokens(allNames),
      meanAdvertisedTokens: sumTokens(allNames),
      tokensSaved: 0,
    });
  });

  it('ranked selectors report their k and never advertise more than k without falling open', async () => {
    const { lines } = await run(
      'eval',
      '--tools',
      toolsFile,
      '--cases',
      casesFile,
      '--split',
      'all',
      '--selector',
      'bm25',
      '--k',
      '3',
      '--json',
    );
    const report = JSON.parse(lines[0]!);
    expect(report.selector).toBe('bm25');
    expect(report.k).toBe(3);
    // Each case advertises at most 3, or all 12 when it fell open.
    expect(report.meanAdvertised).toBeLessThanOrEqual(3 + report.fellOpen * 12);
  });

  it('prints a readable report without --json', async () => {
    const { lines } = await run('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'dev');
    expect(lines[0]).toBe('selector keyword on 4 dev cases (6 of 10 in the file left out by --split dev)');
    expect(lines.find((l) => l.includes('fullRecall'))).toMatch(/0\.75$/);
  });
});

describe('the dev/test split', () => {
  it.each([
    ['live_multiple_12-4-0', 'live_multiple-4'],
    ['live_multiple_13-4-1', 'live_multiple-4'],
    ['live_parallel_multiple_0-0-0', 'live_parallel_multiple-0'],
    ['live_simple_7-3-0', 'live_simple-3'],
    ['multi_turn_base_3-turn2', 'multi_turn_base_3'],
    ['multi_turn_base_3-turn0', 'multi_turn_base_3'],
    ['simple_python_0', 'simple_python_0'],
    ['parallel_multiple_4', 'parallel_multiple_4'],
    ['metatool-single-00000', 'metatool-single-00000'],
  ])('splitKey(%s) = %s', (id, key) => {
    expect(splitKey(id)).toBe(key);
  });

  // Expected sides computed independently with Python (hashlib.sha256, first 8 hex digits, mod 100 < 20).
  it.each([
    ['live_multiple_12-4-0', 'dev'],
    ['live_multiple_14-5-0', 'test'],
    ['live_parallel_multiple_0-0-0', 'dev'],
    ['multi_turn_base_3-turn2', 'test'],
    ['multi_turn_base_18-turn1', 'dev'],
    ['simple_python_0', 'test'],
    ['simple_python_13', 'dev'],
    ['metatool-single-00000', 'dev'],
    ['metatool-single-00001', 'test'],
  ] as const)('splitOf(%s) = %s', (id, side) => {
    expect(splitOf(id)).toBe(side);
  });

  it('keeps related cases on one side', () => {
    expect(splitOf('live_multiple_99-4-7')).toBe(splitOf('live_multiple_12-4-0'));
    for (let turn = 0; turn < 6; turn++) expect(splitOf(`multi_turn_base_18-turn${turn}`)).toBe('dev');
  });

  it('loadCases keeps the requested side of the fixture', () => {
    expect(loadCases(casesFile, 'dev').map((c) => c.id)).toEqual(DEV_IDS);
    expect(loadCases(casesFile, 'test')).toHaveLength(6);
    expect(loadCases(casesFile, 'all')).toHaveLength(10);
  });

  // The public sets sit beside the checkout (../shared), as on developer machines and in CI.
  const shared = resolve(root, '../shared/eval');
  it.skipIf(!existsSync(shared))('reproduces the README dev/test counts on the shared datasets', () => {
    const counts = Object.fromEntries(
      ['bfcl', 'bfcl_multi_turn', 'metatool'].map((name) => {
        const file = join(shared, name, 'cases.jsonl');
        return [name, [loadCases(file, 'dev').length, loadCases(file, 'test').length]];
      }),
    );
    expect(counts).toEqual({ bfcl: [506, 1995], bfcl_multi_turn: [159, 572], metatool: [4208, 16821] });
  });
});

describe('usage errors', () => {
  it.each([
    [['select', 'weather'], /--tools FILE is required/],
    [['select', '--tools', toolsFile, '--k', '0', 'weather'], /--k must be a positive integer, got "0"/],
    [['select', '--tools', toolsFile, '--k', 'abc', 'weather'], /--k must be a positive integer, got "abc"/],
    [['select', '--tools', toolsFile, '--k', '2.5', 'weather'], /--k must be a positive integer/],
    [
      ['select', '--tools', toolsFile, '--selector', 'nope', 'weather'],
      /unknown selector "nope" \(known: .*keyword.*\)/,
    ],
    [['select', '--tools', toolsFile, '--selector', 'constructor', 'weather'], /unknown selector "constructor"/],
    [['select', '--tools', toolsFile], /select needs a PROMPT/],
    [['eval', '--tools', toolsFile], /--cases FILE is required/],
    [['eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'train'], /--split must be dev, test or all/],
    [['frobnicate', '--tools', toolsFile], /unknown command "frobnicate"/],
    [['select', '--tools', toolsFile, '--bogus', 'weather'], /Unknown option '--bogus'/],
    [['select', '--tools', toolsFile, '--k'], /--k/],
  ])('%j is a UsageError', async (argv, message) => {
    const error = await main(argv, () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('no command prints the usage and exits 2; --help exits 0', async () => {
    const bare = await run();
    expect(bare.code).toBe(2);
    expect(bare.lines.join('\n')).toMatch(/Usage:/);
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.lines.join('\n')).toMatch(/loopctl select --tools FILE/);
  });
});

describe('bin/loopctl.mjs (the built CLI)', () => {
  const bin = join(root, 'bin/loopctl.mjs');

  const loopctl = (...argv: string[]) => spawnSync(process.execPath, [bin, ...argv], { cwd: root, encoding: 'utf8' });

  it('select --json works from the bin', () => {
    const result = loopctl('select', '--tools', toolsFile, '--json', 'Fix the typo in the config');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).advertised).toEqual(['edit_file']);
  });

  it('eval --json prints exactly one JSON line from the bin', () => {
    const result = loopctl('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'all', '--json');
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).fullRecall).toBeCloseTo(0.8, 12);
  });

  it.each([
    [['select', 'weather'], '--tools FILE is required'],
    [['select', '--tools', toolsFile, '--k=-3', 'weather'], '--k must be a positive integer, got "-3"'],
    [['select', '--tools', toolsFile, '--k', '-3', 'weather'], "Option '--k' argument is ambiguous"],
    [['select', '--tools', toolsFile, '--selector', 'nope', 'weather'], 'unknown selector "nope"'],
  ])('%j exits 2 with a one-line message and no stack', (argv, message) => {
    const result = loopctl(...argv);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(`loopctl: ${message}`)).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('select and eval run where only loopctl is installed (no gpt-tokenizer): estimated tokens, the note only with --verbose', () => {
    // What `npm install loopctl` gives: the package alone, none of its optional peers.
    const app = mkdtempSync(join(tmpdir(), 'loopctl-bare-'));
    try {
      const pkg = join(app, 'node_modules/loopctl');
      mkdirSync(pkg, { recursive: true });
      for (const entry of ['bin', 'dist', 'package.json'])
        cpSync(join(root, entry), join(pkg, entry), { recursive: true });
      const bare = (...argv: string[]) =>
        spawnSync(process.execPath, [join(pkg, 'bin/loopctl.mjs'), ...argv], { cwd: app, encoding: 'utf8' });
      // The figures say what counted them (tokenCounter, "estimated"); the how-to note is --verbose's.
      const selected = bare('select', '--tools', toolsFile, '--json', 'Fix the typo in the config');
      expect(selected.stderr).toBe('');
      expect(selected.status).toBe(0);
      const verbose = bare('select', '--tools', toolsFile, '--verbose', 'Fix the typo in the config');
      expect(verbose.stderr).toBe(
        'loopctl: token counts are estimates (about 4 bytes a token): npm install gpt-tokenizer for exact o200k_base counts\n',
      );
      expect(verbose.stdout).toMatch(/schema tokens \(estimated\)/);
      const figures = JSON.parse(selected.stdout);
      expect(figures.advertised).toEqual(['edit_file']);
      expect(figures.tokenCounter).toBe('approx-bytes/4');
      expect(figures.registryTokens).toBeGreaterThan(0);
      const evaluated = bare('eval', '--tools', toolsFile, '--cases', casesFile, '--split', 'all', '--json');
      expect(evaluated.status, evaluated.stderr).toBe(0);
      expect(JSON.parse(evaluated.stdout)).toMatchObject({ cases: 10, tokenCounter: 'approx-bytes/4' });
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it('a missing tools file fails (exit 1) with a message naming it', () => {
    const result = loopctl('select', '--tools', join(fixtures, 'no-such-file.json'), 'weather');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no-such-file.json');
  });
});
