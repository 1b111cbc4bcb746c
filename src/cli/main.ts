import { parseArgs } from 'node:util';
import { toolsCost } from '../registry/tool-cost.js';
import { o200kTokenCounter } from '../tokens/token-counter.js';
import { loadCases, loadTools, type EvalCase, type SplitName } from './eval-data.js';
import { evaluate, selectFor, type AnySelector } from './evaluate.js';
import type { ToolSchema } from '../registry/schema.js';
import type { LearnExample } from '../select/example-memory.js';
import type { LearnSummary } from '../select/learned-store.js';
import { defaultEmbedder, makeSelector, SELECTOR_FACTORIES, usesK } from './selectors.js';

const USAGE = `loopctl — per-turn tool selection

Usage:
  loopctl select --tools FILE [--selector NAME] [--k N] [--model DIR] [--json] PROMPT
  loopctl eval --tools FILE --cases FILE [--selector NAME] [--k N] [--split dev|test|all] [--learn FILE] [--model DIR] [--json]

Selectors: ${Object.keys(SELECTOR_FACTORIES).join(', ')} (default: keyword)
Dense selectors (embedding*, hybrid*) use the offline model in models/use-lite (npm run build:model) or --model DIR.
Files: tools.json is [{"name","description","parameters"}]; cases.jsonl has {"id","query","expected"} per line.
--learn FILE (cases.jsonl format, every line) is fed to the selector as examples before the run (embedding* and hybrid* selectors).`;

/** Thrown for a usage mistake: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/**
 * Run the CLI with arguments (without `node` and the script). Returns the exit code.
 *
 * @example
 * await main(['select', '--tools', 'tools.json', 'what is the weather in Oslo'])
 */
export async function main(argv: readonly string[], out: (line: string) => void = console.log): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const { values, positionals } = parseOptions(rest);
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 10_000) throw new UsageError(`--k must be a positive integer, got "${values.k}"`);
  if (!values.tools) throw new UsageError('--tools FILE is required');
  const selectorName = values.selector as string;
  if (!Object.hasOwn(SELECTOR_FACTORIES, selectorName)) {
    throw new UsageError(`unknown selector "${selectorName}" (known: ${Object.keys(SELECTOR_FACTORIES).join(', ')})`);
  }
  const model = values.model;
  const selector = await makeSelector(selectorName, { k, embedder: () => defaultEmbedder(model) });
  const tools = loadTools(values.tools);
  const counter = await o200kTokenCounter();
  const learned = values.learn ? await learnFrom(selector, selectorName, values.learn, tools) : undefined;

  if (command === 'select') {
    const prompt = positionals.join(' ');
    if (!prompt) throw new UsageError('select needs a PROMPT');
    const start = performance.now();
    const selection = await selectFor(selector, prompt, tools, new AbortController().signal);
    const ms = performance.now() - start;
    const figures = {
      selector: selectorName,
      advertised: selection.names,
      registered: tools.length,
      fellOpen: selection.fellOpen ?? null,
      advertisedTokens: toolsCost(selection.tools, counter),
      registryTokens: toolsCost(tools, counter),
      ms: round(ms, 3),
      reasons: selection.reasons,
      ...(learned ? { learned } : {}),
    };
    if (values.json) {
      out(JSON.stringify(figures));
    } else {
      for (const name of selection.names) {
        const reason = selection.reasons[name];
        const why = reason?.matched ? `  [${reason.matched.join(', ')}]` : reason?.score !== undefined ? `  (${round(reason.score, 3)})` : '';
        out(`${name}${why}`);
      }
      out(
        `\n${selection.names.length} of ${tools.length} tools advertised` +
          `${selection.fellOpen ? ` (fell open: ${selection.fellOpen})` : ''}; ` +
          `${figures.advertisedTokens} of ${figures.registryTokens} schema tokens; ${figures.ms} ms`,
      );
    }
    return 0;
  }

  if (command === 'eval') {
    if (!values.cases) throw new UsageError('--cases FILE is required');
    const split = values.split as SplitName;
    if (!['dev', 'test', 'all'].includes(split)) throw new UsageError(`--split must be dev, test or all, got "${split}"`);
    const cases = loadCases(values.cases, split);
    const report = await evaluate(selector, tools, cases, counter, { name: selectorName, k: usesK(selectorName) ? k : null });
    if (values.json) {
      out(JSON.stringify(learned ? { ...report, learned } : report));
    } else {
      out(`selector ${report.selector}${report.k ? ` (k=${report.k})` : ''} on ${report.cases} ${split} cases`);
      if (learned) {
        out(`  learned        ${learned.learned} examples (${learned.duplicates} duplicates, ${learned.unknownTools} unknown tools, ${learned.ignored} ignored)`);
      }
      out(`  fullRecall     ${round(report.fullRecall, 4)}`);
      out(`  recall         ${round(report.recall, 4)}`);
      out(`  meanAdvertised ${round(report.meanAdvertised, 2)} of ${tools.length}`);
      out(`  fellOpen       ${round(report.fellOpen, 4)}`);
      out(`  tokensSaved    ${round(report.tokensSaved, 4)} (${Math.round(report.meanAdvertisedTokens)} of ${report.registryTokens} tokens)`);
      out(`  p50 / p95 ms   ${round(report.p50Ms, 3)} / ${round(report.p95Ms, 3)}`);
    }
    return 0;
  }
  throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
}

/** Parse the options after the command; a malformed or unknown option is a usage mistake. */
function parseOptions(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        tools: { type: 'string' },
        cases: { type: 'string' },
        selector: { type: 'string', default: 'keyword' },
        k: { type: 'string', default: '8' },
        split: { type: 'string', default: 'test' },
        json: { type: 'boolean', default: false },
        model: { type: 'string' },
        learn: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Feed a cases.jsonl file to a selector that can learn, before it runs. */
async function learnFrom(selector: AnySelector, name: string, file: string, tools: readonly ToolSchema[]): Promise<LearnSummary> {
  const learner = selector as AnySelector & { learn?: (examples: readonly LearnExample[], options: { tools: readonly ToolSchema[] }) => Promise<LearnSummary> };
  if (typeof learner.learn !== 'function') throw new UsageError(`--learn: selector "${name}" cannot learn (embedding* and hybrid* can)`);
  let cases: EvalCase[];
  try {
    cases = loadCases(file, 'all');
  } catch (error) {
    throw new UsageError(`--learn: ${error instanceof Error ? error.message : String(error)}`);
  }
  return learner.learn(
    cases.map((item) => ({ query: item.query, tools: item.expected })),
    { tools },
  );
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
