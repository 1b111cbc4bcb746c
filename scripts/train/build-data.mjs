#!/usr/bin/env node
/**
 * Builds the tuned encoder's training data in .cache/train/data/ (gitignored): one JSON file per
 * registry with its tools and cases, each text already tokenised by the project's own
 * USE-lite tokenizer (models/use-lite/vocab.json; run `npm run build` first), so train.py only
 * trains. Sources are read at pinned commits from git clones (scripts/train/sources.mjs), plus
 * the **dev** splits of ../shared/eval (never the test splits). Prints the counts and each
 * file's sha256; scripts/train/data-manifest.json holds the figures of the committed run, and
 * `--check` fails when a rebuild differs from it.
 *
 *   node scripts/train/build-data.mjs [--mirrors DIR] [--eval DIR] [--out DIR] [--check] [--write-manifest]
 *
 * --mirrors: a folder with one bare or normal clone per repository, named `owner+name/repo`
 * (the layout of the fetch tool) or `owner+name` (a plain `git clone`); default /work/.mirror.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCases, loadTools } from '../../dist/cli.js';
import { toolText } from '../../dist/selector-kit.js';
import { createUseLiteTokenizer } from '../../dist/use-lite.js';
import { SOURCES } from './sources.mjs';

const here = import.meta.dirname;
const root = resolve(here, '..', '..');
const { values } = parseArgs({
  options: {
    mirrors: { type: 'string', default: '/work/.mirror' },
    eval: { type: 'string', default: resolve(root, '..', 'shared', 'eval') },
    out: { type: 'string', default: join(root, '.cache', 'train', 'data') },
    check: { type: 'boolean', default: false },
    'write-manifest': { type: 'boolean', default: false },
  },
});

/** Eval sets whose dev split is training data (and whose test split is never read but to check overlap). */
export const EVAL_SETS = ['bfcl', 'bfcl_multi_turn', 'metatool'];

function gitDir(repo) {
  const base = join(values.mirrors, repo.replace('/', '+'));
  for (const dir of [join(base, 'repo'), base]) if (existsSync(dir)) return dir;
  throw new Error(`no clone of ${repo} under ${values.mirrors} (expected ${base}/repo or ${base})`);
}

function gitReader(repo, commit) {
  const dir = gitDir(repo);
  const git = (...args) =>
    execFileSync('git', ['--git-dir', existsSync(join(dir, '.git')) ? join(dir, '.git') : dir, ...args], {
      maxBuffer: 1 << 28,
    });
  return {
    show: async (path) => git('show', `${commit}:${path}`).toString('utf8'),
    list: async (folder) =>
      git('ls-tree', '--name-only', `${commit}`, folder).toString('utf8').split('\n').filter(Boolean).sort(),
  };
}

const vocab = JSON.parse(readFileSync(join(root, 'models', 'use-lite', 'vocab.json'), 'utf8'));
const tokenizer = createUseLiteTokenizer(vocab);
const encode = (text) => tokenizer.encode(text).slice(0, 128);
const norm = (q) => q.toLowerCase().replace(/\s+/g, ' ').trim();

// Test-split queries of the eval sets: a training case with the same text is dropped.
const testQueries = new Set();
for (const set of EVAL_SETS)
  for (const c of loadCases(join(values.eval, set, 'cases.jsonl'), 'test')) testQueries.add(norm(c.query));

/** Dedupes tools by name, drops cases with unknown tools, blank or repeated queries, or test-split text. */
function tidy(registry, { tools, cases }) {
  const seen = new Map();
  for (const t of tools) if (t.name && !seen.has(t.name)) seen.set(t.name, t);
  const list = [...seen.values()];
  const index = new Map(list.map((t, i) => [t.name, i]));
  const queries = new Set();
  let dropped = 0;
  let overlap = 0;
  const kept = [];
  for (const c of cases) {
    const q = norm(c.query);
    if (testQueries.has(q)) {
      overlap++;
      continue;
    }
    const expected = c.expected.map((n) => index.get(n));
    if (!q || queries.has(q) || expected.some((i) => i === undefined)) {
      dropped++;
      continue;
    }
    queries.add(q);
    kept.push({ query: c.query.trim(), expected });
  }
  return {
    registry,
    tools: list.map((t) => {
      const text = toolText(t.name, t.description ?? '');
      return { name: t.name, text, ids: encode(text) };
    }),
    cases: kept.map((c) => ({ query: c.query, ids: encode(c.query), expected: c.expected })),
    dropped,
    overlap,
  };
}

const built = [];
for (const source of SOURCES) {
  const reader = gitReader(source.repo, source.commit);
  for (const r of source.registries) {
    const data = tidy(r.registry, await r.read(reader.show, reader.list));
    built.push({ ...data, source: `${source.repo}@${source.commit.slice(0, 12)}`, licence: source.licence });
  }
}
for (const set of EVAL_SETS) {
  const tools = loadTools(join(values.eval, set, 'tools.json'));
  const cases = loadCases(join(values.eval, set, 'cases.jsonl'), 'dev');
  const data = tidy(`eval_${set}`, { tools, cases });
  built.push({
    ...data,
    source: `../shared/eval/${set} (dev split only)`,
    licence: set === 'metatool' ? 'MIT' : 'Apache-2.0',
    holdout: set,
  });
}

mkdirSync(values.out, { recursive: true });
const manifest = [];
for (const b of built) {
  const { dropped, overlap, ...file } = b;
  const bytes = `${JSON.stringify(file)}\n`;
  writeFileSync(join(values.out, `${b.registry}.json`), bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const pairs = b.cases.reduce((n, c) => n + c.expected.length, 0);
  manifest.push({
    registry: b.registry,
    source: b.source,
    licence: b.licence,
    tools: b.tools.length,
    cases: b.cases.length,
    pairs,
    dropped,
    testOverlap: overlap,
    sha256,
    ...(b.holdout ? { holdout: b.holdout } : {}),
  });
}
writeFileSync(join(values.out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
console.log(
  '| registry | tools | cases | pairs | dropped | test overlap | sha256 |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |',
);
for (const m of manifest)
  console.log(
    `| ${m.registry} | ${m.tools} | ${m.cases} | ${m.pairs} | ${m.dropped} | ${m.testOverlap} | ${m.sha256.slice(0, 12)} |`,
  );

const committed = join(here, 'data-manifest.json');
if (values['write-manifest']) writeFileSync(committed, `${JSON.stringify(manifest, null, 1)}\n`);
if (values.check) {
  const want = JSON.parse(readFileSync(committed, 'utf8'));
  const bad = want.filter((w) => manifest.find((m) => m.registry === w.registry)?.sha256 !== w.sha256);
  if (bad.length || want.length !== manifest.length) {
    console.error(`differs from ${committed}: ${bad.map((b) => b.registry).join(', ') || 'registry list'}`);
    process.exit(1);
  }
  console.log(`matches ${committed}`);
}
