#!/usr/bin/env node
// `npm run tune:whole-task`: the dev-only measurements behind whole-task selection (issue 30):
// tool links (prerequisites), one tool per intent, and learning that must not hurt unseen tools.
// DEV SPLITS ONLY (the test split is never read), plus the project's own dev registry
// (test/fixtures/workdesk, all its cases; hand-written for tuning). Writes docs/tuning-whole-task.md.
//
// --part plain   HybridSelector rows (--rows JSON: a list of [label, options]) on every set,
//                fullRecall@8 with the cases expecting 1, 2 and 3+ tools apart, and mean advertised.
// --part unseen  learning where the examples and the scored prompts use mostly different tools:
//                each set's dev tools are split in two by a hash of the name; examples are the dev
//                cases whose tools all fall in one half, scored prompts those that need a tool of
//                the other half (both ways). Rows from --learn-rows JSON.
// --part pairs   learning on the other fold of dev (two-fold cross-validation, as tune-learn.mjs),
//                rows from --learn-rows JSON: does a learned pair of tools used together help?
// --part folds   the same with --folds N folds (default 10): each fold learns from the other N − 1,
//                nearly all of dev, as the eval's hybrid+learned learns from all of it.
//
// --vectors FILE keeps query vectors between runs (a JSON map; dev iteration only).
// --out FILE     rewrites only the sections of the parts run (between <!-- part:NAME --> markers),
//                each stamped with its command; text outside the markers is kept.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  defaultEmbedder,
  EXPECTED_GROUPS,
  expectedGroup,
  loadCases,
  loadTools,
  memoEmbedder,
  splitKey,
} from '../dist/cli.js';
import { HybridSelector, memoryVectorCache } from '../dist/index.js';
import { persistentEmbedder } from './persistent-embedder.mjs';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(import.meta.dirname, '../../shared/eval') },
    'dev-registry': { type: 'string', default: resolve(import.meta.dirname, '../test/fixtures/workdesk') },
    out: { type: 'string' },
    part: { type: 'string', default: 'plain' },
    sets: { type: 'string' },
    rows: { type: 'string' },
    'learn-rows': { type: 'string' },
    cap: { type: 'string', default: '100000' },
    vectors: { type: 'string' },
    misses: { type: 'string' },
    folds: { type: 'string', default: '10' },
  },
});

const DEV = values['dev-registry'] ? resolve(values['dev-registry']).split('/').at(-1) : undefined;
const publicSets = readdirSync(values.data).filter((d) => existsSync(join(values.data, d, 'cases.jsonl')));
const sets = (values.sets?.split(',') ?? [...publicSets.sort(), ...(DEV ? [DEV] : [])]).filter(Boolean);
const dirOf = (set) => (set === DEV ? resolve(values['dev-registry']) : join(values.data, set));
const cap = Number(values.cap);
const hash = (text) => parseInt(createHash('sha256').update(text).digest('hex').slice(0, 8), 16);
const data = Object.fromEntries(
  sets.map((set) => {
    const cases = loadCases(join(dirOf(set), 'cases.jsonl'), set === DEV ? 'all' : 'dev');
    // --cap keeps a fixed pseudo-random sample (by a hash of the id), not the file's first cases.
    const kept =
      cases.length <= cap ? cases : [...cases].sort((a, b) => hash(`cap:${a.id}`) - hash(`cap:${b.id}`)).slice(0, cap);
    return [set, { tools: loadTools(join(dirOf(set), 'tools.json')), cases: kept }];
  }),
);
const embedder = values.vectors
  ? persistentEmbedder(await defaultEmbedder(), values.vectors)
  : memoEmbedder(await defaultEmbedder());
const corpusCaches = {};
const signal = new AbortController().signal;

/** fullRecall@8 (all, and per expected-tools group) and mean advertised of one setting on `cases`. */
async function score(options, set, cases, learnFrom) {
  const { tools } = data[set];
  corpusCaches[set] ??= memoryVectorCache();
  const selector = new HybridSelector(embedder, {
    cache: corpusCaches[set],
    learnedCache: memoryVectorCache(),
    ...options,
  });
  if (learnFrom?.length)
    await selector.learn(
      learnFrom.map((c) => ({ query: c.query, tools: c.expected })),
      { tools },
    );
  const groups = Object.fromEntries(EXPECTED_GROUPS.map((g) => [g, { n: 0, full: 0 }]));
  let full = 0;
  let advertised = 0;
  const misses = [];
  for (const c of cases) {
    const output = await selector.select({ turn: 1, latestUserMessage: c.query, conversation: [] }, tools, { signal });
    const names = new Set(output.tools.map((t) => t.name));
    advertised += output.tools.length;
    const ok = c.expected.every((name) => names.has(name));
    const group = groups[expectedGroup(c.expected.length)];
    group.n++;
    if (ok) {
      full++;
      group.full++;
    } else misses.push({ query: c.query, missing: c.expected.filter((name) => !names.has(name)), got: [...names] });
  }
  const n = Math.max(cases.length, 1);
  return {
    full: full / n,
    groups: Object.fromEntries(
      EXPECTED_GROUPS.map((g) => [g, { n: groups[g].n, full: groups[g].full / Math.max(groups[g].n, 1) }]),
    ),
    advertised: advertised / n,
    misses,
  };
}

const fmt = (r) =>
  `${r.full.toFixed(3)} (${EXPECTED_GROUPS.map((g) => (r.groups[g].n ? r.groups[g].full.toFixed(3) : '–')).join(' / ')}; ${r.advertised.toFixed(1)})`;

let md = '';
const parts = values.part.split(',');

if (parts.includes('plain')) {
  const rows = values.rows ? JSON.parse(values.rows) : [['defaults', {}]];
  md += `## Plain hybrid rows (dev)\n\nCells: fullRecall@8 (cases expecting 1 / 2 / 3+ tools; mean advertised). ${sets.map((s) => `${s}: ${data[s].cases.length} cases (${EXPECTED_GROUPS.map((g) => data[s].cases.filter((c) => expectedGroup(c.expected.length) === g).length).join(' / ')})`).join('; ')}.\n\n`;
  md += `| setting | ${sets.join(' | ')} |\n| --- | ${sets.map(() => '---').join(' | ')} |\n`;
  for (const [label, options] of rows) {
    const cells = [];
    for (const set of sets) {
      const result = await score(options, set, data[set].cases);
      cells.push(fmt(result));
      console.error(`${label.padEnd(40)} ${set.padEnd(16)} ${fmt(result)}`);
      if (values.misses && set === values.misses)
        for (const m of result.misses)
          console.error(`  MISS ${m.query}\n     missing ${m.missing.join(',')}  got ${m.got.join(',')}`);
    }
    md += `| ${label} | ${cells.join(' | ')} |\n`;
    embedder.save?.();
  }
  md += '\n';
}

if (parts.includes('unseen') || parts.includes('pairs') || parts.includes('folds')) {
  const rows = values['learn-rows'] ? JSON.parse(values['learn-rows']) : [['defaults', {}]];
  for (const part of ['unseen', 'pairs', 'folds'].filter((p) => parts.includes(p))) {
    const folds = part === 'folds' ? Number(values.folds) : 2;
    const learnSets = sets.filter((s) => s !== DEV);
    md +=
      part === 'unseen'
        ? `## Learning on tools the scored prompts mostly do not use (dev)\n\nEach set's tools are split in two halves by a hash of the name. Examples: the dev cases whose tools all lie in one half; scored: the dev cases needing a tool of the other half. Both ways, pooled. Cells: no learning → learning (fullRecall@8, 1 / 2 / 3+ apart).\n\n`
        : part === 'pairs'
          ? `## Learning the other fold (two-fold cross-validation inside dev)\n\nCells: no learning → learning the other fold (fullRecall@8, 1 / 2 / 3+ apart).\n\n`
          : `## Learning from most of dev (${folds}-fold cross-validation inside dev)\n\nDev split in ${folds} folds by a hash of the conversation (as the pairs part); each fold is scored after learning from the other ${folds - 1}, nearly as many examples as the eval's hybrid+learned learns (all of dev). Cells: no learning → learning (fullRecall@8, 1 / 2 / 3+ apart).\n\n`;
    md += `| setting | ${learnSets.join(' | ')} |\n| --- | ${learnSets.map(() => '---').join(' | ')} |\n`;
    for (const [label, options] of rows) {
      const cells = [];
      for (const set of learnSets) {
        const { cases } = data[set];
        const splits =
          part === 'unseen'
            ? [0, 1].map((half) => {
                const inHalf = (name) => hash(`half:${name}`) % 2 === half;
                return {
                  learn: cases.filter((c) => c.expected.every(inHalf)),
                  score: cases.filter((c) => !c.expected.every(inHalf)),
                };
              })
            : Array.from({ length: folds }, (_, f) => {
                const foldOf = (c) => hash(`fold:${splitKey(c.id)}`) % folds;
                return { learn: cases.filter((c) => foldOf(c) !== f), score: cases.filter((c) => foldOf(c) === f) };
              });
        const pooled = { before: [], after: [] };
        for (const split of splits) {
          pooled.before.push(await score(options, set, split.score));
          pooled.after.push(await score(options, set, split.score, split.learn));
        }
        const merge = (results, splitsUsed) => {
          const total = splitsUsed.reduce((sum, s) => sum + s.score.length, 0);
          const groups = Object.fromEntries(
            EXPECTED_GROUPS.map((g) => {
              const n = results.reduce((sum, r) => sum + r.groups[g].n, 0);
              return [
                g,
                { n, full: results.reduce((sum, r) => sum + r.groups[g].full * r.groups[g].n, 0) / Math.max(n, 1) },
              ];
            }),
          );
          return {
            full: results.reduce((sum, r, i) => sum + r.full * splitsUsed[i].score.length, 0) / Math.max(total, 1),
            groups,
            advertised:
              results.reduce((sum, r, i) => sum + r.advertised * splitsUsed[i].score.length, 0) / Math.max(total, 1),
          };
        };
        const before = merge(pooled.before, splits);
        const after = merge(pooled.after, splits);
        const examples =
          folds > 2
            ? `${Math.min(...splits.map((s) => s.learn.length))}–${Math.max(...splits.map((s) => s.learn.length))} examples per fold`
            : `${splits.map((s) => s.learn.length).join('+')} examples`;
        cells.push(
          `${fmt(before)} → ${fmt(after)} [${examples}, Δ ${(after.full - before.full >= 0 ? '+' : '') + (after.full - before.full).toFixed(3)}]`,
        );
        console.error(`${part} ${label.padEnd(36)} ${set.padEnd(16)} ${cells.at(-1)}`);
      }
      md += `| ${label} | ${cells.join(' | ')} |\n`;
      embedder.save?.();
    }
    md += '\n';
  }
}

if (values.out) {
  writeFileSync(values.out, mergeDoc(existsSync(values.out) ? readFileSync(values.out, 'utf8') : undefined, md));
  console.error(`wrote ${values.out}`);
} else process.stdout.write(md);

/** The command that ran, quoted for a POSIX shell, as the doc records it. */
function commandLine() {
  const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
  return ['node', 'scripts/tune-whole-task.mjs', ...process.argv.slice(2)].map(quote).join(' ');
}

/**
 * Each part's tables sit between `<!-- part:NAME -->` markers, so a run of one part rewrites
 * that section and keeps the others and every hand-written paragraph outside the markers.
 */
function mergeDoc(existing, generated) {
  const sections = generated.split(/(?=^## )/m).filter((s) => s.trim());
  const partOf = (section) =>
    section.startsWith('## Plain')
      ? 'plain'
      : section.startsWith('## Learning on tools')
        ? 'unseen'
        : section.startsWith('## Learning from most')
          ? 'folds'
          : 'pairs';
  const stamp = `Generated by \`${commandLine()}\` on ${new Date().toISOString().slice(0, 10)} (dev splits only; the test split is never read).\n\n`;
  let doc =
    existing ??
    `# Whole-task selection tuning (dev splits only)\n\nThe tables are written by \`npm run tune:whole-task\` (scripts/tune-whole-task.mjs); each section names the command that produced it. A run rewrites only the sections of the parts it ran; text outside the \`<!-- part: -->\` markers is kept.\n\n`;
  for (const section of sections) {
    const part = partOf(section);
    const [heading, ...body] = section.split('\n\n');
    const block = `<!-- part:${part} -->\n${heading}\n\n${stamp}${body.join('\n\n').trimEnd()}\n<!-- /part:${part} -->`;
    const pattern = new RegExp(`<!-- part:${part} -->[\\s\\S]*?<!-- /part:${part} -->`);
    doc = pattern.test(doc) ? doc.replace(pattern, () => block) : `${doc.trimEnd()}\n\n${block}\n`;
  }
  return doc;
}
