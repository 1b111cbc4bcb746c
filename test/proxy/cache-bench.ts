/**
 * `npm run bench:cache`: what each tool policy does to the bill. Conversations are replayed
 * through the proxy (the Node entry, USE-lite, the default `hybrid` selector) onto the
 * recording upstream, whose scripted model calls each turn's tools: directly when declared,
 * else through the proxy's search (see `modelTurn`). The bodies the upstream received are
 * billed in input units under Anthropic's and OpenAI's caching rules (`cache-bill.ts`), for:
 *
 * - `all`: every tool forwarded (`x-loopctl-bypass: 1`), the baseline;
 * - `narrow`: re-selected at every user message, nothing else reachable (the proxy before tool search);
 * - `default`: the proxy's default policy (`auto`).
 *
 * Scenarios: test-split bfcl_multi_turn conversations (each turn's ground-truth calls, then a
 * text answer), and a synthetic session of 10 user turns × 3 tool rounds (40 requests, a
 * 2,000-token system prompt), with 200 / 2,000 / 5,000-token tool results, over registries of
 * 30, 128 and 1,000 tools, with a client that caches (Anthropic: breakpoints after the tools,
 * on the system prompt and on the last message; OpenAI: a server that caches prefixes) and one
 * that does not.
 *
 * Placements ({@link runPlacementBench}): the session again on the Messages wire, once per place
 * real clients put their breakpoints (only after the tools, only on the system prompt, only on
 * the last message, several), billed under Anthropic's rules and under OpenAI's (an
 * Anthropic-compatible upstream that caches every prefix by itself). The proxy must resolve the
 * same policy on every request of a session whichever one a client uses.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer, useLiteFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import type { ScriptedReply } from '../support/scripted-model-server.js';
import { CacheBiller, promptBlocks } from './cache-bill.js';
import type { FixtureProtocol, FrontRequest, UpstreamFixture } from './upstream-fixture.js';
import { modelTurn, startUpstreamFixture } from './upstream-fixture.js';

type Json = Record<string, unknown>;

/** The three policies compared. */
export type BenchPolicy = 'all' | 'narrow' | 'default';

/**
 * Where an Anthropic client sets its `cache_control` breakpoints: after the tools (on the last
 * tool), on the system prompt, on the last message, or all three (`several`).
 */
export type Placement = 'tools' | 'system' | 'last message' | 'several';

/** Every placement, in table order. */
export const PLACEMENTS: readonly Placement[] = ['tools', 'system', 'last message', 'several'];

/** One user turn: its prompt and the tools it calls, in order. */
export interface Turn {
  readonly query: string;
  readonly calls: readonly string[];
}

/** A conversation to replay: its system prompt and user turns. */
export interface Scenario {
  readonly id: string;
  readonly turns: readonly Turn[];
  readonly system: string;
}

/** One row of the tables. */
export interface BenchRow {
  /** The policy table (a scenario under its provider) or the placement table (the session, breakpoints placed one way). */
  readonly table: 'policies' | 'placements';
  readonly scenario: string;
  readonly tools: number;
  readonly results: number;
  readonly cached: boolean;
  /** Whose caching rules billed the row. */
  readonly provider: 'anthropic' | 'openai';
  /** The protocol the client spoke (the placement rows bill Messages bodies under both rules). */
  readonly wire: 'anthropic' | 'openai';
  /** Where the client set its breakpoints; absent where it set none (OpenAI's wire has none). */
  readonly placement?: Placement;
  /** Client requests and upstream requests (search rounds included), per policy. */
  readonly requests: Record<BenchPolicy, { client: number; upstream: number }>;
  /** Billed input units per policy. */
  readonly units: Record<BenchPolicy, number>;
  /** Share of the tool calls the model could make (declared, or found by search). */
  readonly reached: Record<BenchPolicy, number>;
}

/** Options for {@link runCacheBench}. */
export interface CacheBenchOptions {
  /** The shared eval folder (`../shared/eval`). */
  readonly evalDir: string;
  /** The USE-lite model folder. */
  readonly modelDir: string;
  /** bfcl_multi_turn test-split conversations replayed. Default 24. */
  readonly conversations?: number;
  readonly toolCounts?: readonly number[];
  readonly sessionResults?: readonly number[];
  readonly bfclResults?: readonly number[];
  /** OpenAI's cached-input price, as a share of the uncached one. Default 0.25 (gpt-4.1). */
  readonly openaiRead?: number;
  readonly onRow?: (row: BenchRow) => void;
}

const TOKEN = 'bench-cache-token-0123456789abcdef';

// ---------------------------------------------------------------- data

interface EvalCase {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
}

const hash = (text: string): number => Number.parseInt(createHash('sha256').update(text).digest('hex').slice(0, 8), 16);

/** The project's split: test unless the hash of the conversation id falls in the first 20%. */
const isTest = (conversation: string): boolean => hash(conversation) % 100 >= 20;

function readJsonl(path: string): EvalCase[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EvalCase);
}

function wireTool(tool: ToolSchema): ToolSchema {
  const name = tool.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  const parameters =
    tool.parameters && (tool.parameters as Json).type === 'object'
      ? tool.parameters
      : { type: 'object', properties: {} };
  return { name, description: tool.description, parameters };
}

function shuffled<T extends { name: string }>(tools: readonly T[]): T[] {
  return [...tools].sort((a, b) => hash(`order:${a.name}`) - hash(`order:${b.name}`));
}

interface Data {
  readonly multiTurn: ToolSchema[];
  readonly single: ToolSchema[];
  readonly conversations: Scenario[];
  readonly session: Scenario;
}

function loadData(evalDir: string, conversations: number): Data {
  const multiTurn = (
    JSON.parse(readFileSync(join(evalDir, 'bfcl_multi_turn', 'tools.json'), 'utf8')) as ToolSchema[]
  ).map(wireTool);
  const taken = new Set(multiTurn.map((tool) => tool.name));
  const single: ToolSchema[] = [];
  for (const tool of (JSON.parse(readFileSync(join(evalDir, 'bfcl', 'tools.json'), 'utf8')) as ToolSchema[]).map(
    wireTool,
  )) {
    if (taken.has(tool.name)) continue;
    taken.add(tool.name);
    single.push(tool);
  }
  const cases = readJsonl(join(evalDir, 'bfcl_multi_turn', 'cases.jsonl'));
  const byConversation = new Map<string, EvalCase[]>();
  for (const item of cases) {
    const conversation = item.id.replace(/-turn\d+$/, '');
    if (!isTest(conversation)) continue;
    byConversation.set(conversation, [...(byConversation.get(conversation) ?? []), item]);
  }
  const picked = [...byConversation.keys()].sort((a, b) => hash(a) - hash(b)).slice(0, conversations);
  const system =
    'You are an assistant that operates the user’s tools. Call a tool when the request needs one; answer briefly.';
  const scenarios = picked.map((id) => ({
    id,
    system,
    turns: (byConversation.get(id) ?? []).map((item) => ({ query: item.query, calls: item.expected })),
  }));
  // The synthetic session: 10 user turns of different conversations, 3 tool rounds each.
  const firsts = [...byConversation.values()]
    .map((turns) => turns[0] as EvalCase)
    .sort((a, b) => hash(a.id) - hash(b.id));
  const sessionTurns = firsts.slice(0, 10).map((item) => ({
    query: item.query,
    calls: [0, 1, 2].map((i) => item.expected[i % item.expected.length] as string),
  }));
  const sessionSystem = words(2000, 'system');
  return {
    multiTurn,
    single,
    conversations: scenarios,
    session: { id: 'session', turns: sessionTurns, system: `${system}\n\n${sessionSystem}` },
  };
}

const WORDS = [
  'record',
  'status',
  'value',
  'entry',
  'field',
  'updated',
  'result',
  'item',
  'owner',
  'state',
  'total',
  'count',
  'note',
  'path',
  'size',
  'date',
];

/** About `count` tokens of deterministic text (one o200k token per word). */
function words(count: number, seed: string): string {
  let state = hash(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out.push(WORDS[state % WORDS.length] as string);
  }
  return out.join(' ');
}

/** The registry a scenario runs against, at `size` tools, in a fixed order. */
function registryFor(data: Data, scenario: Scenario, size: number): ToolSchema[] {
  if (size >= data.multiTurn.length)
    return shuffled([...data.multiTurn, ...shuffled(data.single).slice(0, size - data.multiTurn.length)]);
  const needed = new Set(scenario.turns.flatMap((turn) => turn.calls));
  const classOf = (tool: ToolSchema): string => /belongs to the ([^.,]+)/.exec(tool.description)?.[1] ?? '';
  const classes = new Set(data.multiTurn.filter((tool) => needed.has(tool.name)).map(classOf));
  const rank = (tool: ToolSchema): number => (needed.has(tool.name) ? 0 : classes.has(classOf(tool)) ? 1 : 2);
  const ordered = [...data.multiTurn].sort((a, b) => rank(a) - rank(b) || hash(a.name) - hash(b.name));
  return shuffled(ordered.slice(0, size));
}

// ---------------------------------------------------------------- the client

interface Step {
  /** The tool this step calls, or undefined for the turn's text answer. */
  readonly call: string | undefined;
  readonly queries: readonly string[];
}

/** Each turn: one step per call, then a text answer. */
function stepsOf(scenario: Scenario, tools: readonly ToolSchema[]): Step[] {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return scenario.turns.flatMap((turn) => [
    ...turn.calls.map((call) => {
      const description = byName.get(call)?.description ?? call;
      const need = description.replace(/^.*?Tool description:\s*/, '').split(/(?<=\.)\s/)[0] ?? call;
      // A model searches for what it means to do (closest to the tool's own description), then with the user's words.
      return { call, queries: [need, turn.query] };
    }),
    { call: undefined, queries: [] },
  ]);
}

interface ClientState {
  readonly openai: Json[];
  readonly anthropic: Json[];
}

/** Which parts of a Messages request carry a breakpoint, by placement. */
function marks(placement: Placement | undefined): { tools: boolean; system: boolean; last: boolean } {
  const several = placement === 'several';
  return {
    tools: several || placement === 'tools',
    system: several || placement === 'system',
    last: several || placement === 'last message',
  };
}

function anthropicTools(tools: readonly ToolSchema[], cached: boolean): Json[] {
  return tools.map((tool, i) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
    ...(cached && i === tools.length - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
  }));
}

function openAITools(tools: readonly ToolSchema[]): Json[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** The Anthropic messages with a breakpoint on the last block when the client caches. */
function withBreakpoint(messages: readonly Json[], cached: boolean): Json[] {
  if (!cached || messages.length === 0) return [...messages];
  const last = messages[messages.length - 1] as Json;
  const content = [...(last.content as Json[])];
  content[content.length - 1] = { ...(content[content.length - 1] as Json), cache_control: { type: 'ephemeral' } };
  return [...messages.slice(0, -1), { ...last, content }];
}

// ---------------------------------------------------------------- the run

/** What the scripted model is asked to do next, by the request's `x-bench-step` header. */
const needs = new Map<string, Step>();
/** The bodies the upstream received for the replay in progress. */
let captured: { protocol: FixtureProtocol; body: Json }[] = [];

function script(request: FrontRequest, protocol: FixtureProtocol): ScriptedReply {
  if (typeof request.json === 'object' && request.json !== null)
    captured.push({ protocol, body: request.json as Json });
  const step = needs.get(request.headers['x-bench-step'] ?? '');
  if (!step?.call) return { text: 'Done.', usage: false };
  return modelTurn(request.json, protocol, {
    name: step.call,
    arguments: { step: request.headers['x-bench-step'] },
    queries: step.queries,
  });
}

/** Whether the client's answer calls `name`. */
function calls(protocol: 'openai' | 'anthropic', answer: Json, name: string): boolean {
  if (protocol === 'anthropic')
    return (
      Array.isArray(answer.content) &&
      answer.content.some((block: Json) => block.type === 'tool_use' && block.name === name)
    );
  const message = ((answer.choices as Json[] | undefined)?.[0]?.message ?? {}) as Json;
  return (
    Array.isArray(message.tool_calls) && message.tool_calls.some((call: Json) => (call.function as Json).name === name)
  );
}

async function replay(
  server: RunningServer,
  scenario: Scenario,
  tools: readonly ToolSchema[],
  resultTokens: number,
  provider: 'openai' | 'anthropic',
  placement: Placement | undefined,
  policy: BenchPolicy,
): Promise<{ client: number; reached: number; calls: number }> {
  const steps = stepsOf(scenario, tools);
  const state: ClientState = { openai: [{ role: 'system', content: scenario.system }], anthropic: [] };
  const marked = marks(placement);
  const anthropicList = anthropicTools(tools, marked.tools);
  const openaiList = openAITools(tools);
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
  };
  if (policy === 'all') headers['x-loopctl-bypass'] = '1';
  if (policy === 'narrow') headers['x-loopctl-policy'] = 'narrow';
  let turn = 0;
  let reached = 0;
  let callCount = 0;
  let atTurnStart = true;
  for (const [index, step] of steps.entries()) {
    if (atTurnStart) {
      const query = (scenario.turns[turn] as Turn).query;
      state.openai.push({ role: 'user', content: query });
      state.anthropic.push({ role: 'user', content: [{ type: 'text', text: query }] });
      atTurnStart = false;
    }
    const key = `${scenario.id}:${index}:${Math.random().toString(36).slice(2)}`;
    needs.set(key, step);
    const body =
      provider === 'anthropic'
        ? {
            model: 'bench',
            max_tokens: 1024,
            system: [
              {
                type: 'text',
                text: scenario.system,
                ...(marked.system ? { cache_control: { type: 'ephemeral' } } : {}),
              },
            ],
            messages: withBreakpoint(state.anthropic, marked.last),
            tools: anthropicList,
          }
        : { model: 'bench', messages: state.openai, tools: openaiList };
    const response = await fetch(`${server.url}${provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions'}`, {
      method: 'POST',
      headers: { ...headers, 'x-bench-step': key },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Json;
    needs.delete(key);
    if (!response.ok)
      throw new Error(
        `bench: ${provider} ${policy} answered ${response.status}: ${JSON.stringify(answer).slice(0, 400)}`,
      );
    if (step.call) {
      callCount++;
      if (calls(provider, answer, step.call)) reached++;
      // The conversation goes on as scripted whatever the model managed, so every policy bills the same conversation.
      // The same id under every policy: a random one would bill a token more or less at random.
      const id = `call_${hash(`${scenario.id}:${index}`).toString(36).padStart(7, '0')}`;
      const result = words(resultTokens, key.split(':').slice(0, 2).join(':'));
      state.openai.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: step.call, arguments: JSON.stringify({ step: index }) } },
        ],
      });
      state.openai.push({ role: 'tool', tool_call_id: id, content: result });
      state.anthropic.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: step.call, input: { step: index } }],
      });
      state.anthropic.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] });
    } else {
      state.openai.push({ role: 'assistant', content: 'Done.' });
      state.anthropic.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
      turn++;
      atTurnStart = true;
    }
  }
  return { client: steps.length, reached, calls: callCount };
}

/** The proxies a bench replays through, over one recording upstream. */
interface BenchServers {
  /** The default (auto) proxy. */
  readonly plain: RunningServer;
  /** The same with a prefix-caching OpenAI upstream (as api.openai.com is). */
  readonly caching: RunningServer;
  close(): Promise<void>;
}

async function startServers(modelDir: string | undefined, selector: string | undefined): Promise<BenchServers> {
  const embedder = modelDir === undefined ? undefined : useLiteFromDisk(modelDir);
  if (modelDir !== undefined && !embedder)
    throw new Error(`bench: no USE-lite model in ${modelDir} (npm run build:model)`);
  const upstream: UpstreamFixture = await startUpstreamFixture({ script, keepRequests: 1 });
  const vars = {
    LOOPCTL_TOKEN: TOKEN,
    PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
    PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL,
    PROXY_MAX_BODY_BYTES: String(64 * 1024 * 1024),
    ...(selector !== undefined ? { PROXY_SELECTOR: selector } : {}),
  };
  const start = (extra: Record<string, string>) =>
    startNodeServer({
      ...optionsFromVars({ ...vars, ...extra }),
      registry: new ToolRegistry(),
      ...(embedder ? { embedder } : {}),
      port: 0,
      onError: (error) => console.error(error),
    });
  const plain = await start({});
  const caching = await start({ PROXY_PREFIX_CACHE: 'on' });
  return {
    plain,
    caching,
    async close() {
      await plain.close();
      await caching.close();
      await upstream.close();
    },
  };
}

/** Replays of one policy, billed under each of `billers`' rules. */
async function replayBilled(
  server: RunningServer,
  scenarios: readonly Scenario[],
  registry: (scenario: Scenario) => readonly ToolSchema[],
  results: number,
  wire: 'openai' | 'anthropic',
  placement: Placement | undefined,
  policy: BenchPolicy,
  billers: readonly CacheBiller[],
): Promise<{ units: number[]; client: number; upstream: number; reached: number }> {
  const units = billers.map(() => 0);
  let client = 0;
  let upstreamCount = 0;
  let reached = 0;
  let callCount = 0;
  for (const scenario of scenarios) {
    captured = [];
    const outcome = await replay(server, scenario, registry(scenario), results, wire, placement, policy);
    for (const { body } of captured) {
      const blocks = promptBlocks(wire, body);
      billers.forEach((biller, i) => {
        units[i] = (units[i] as number) + biller.bill(blocks).units;
      });
    }
    client += outcome.client;
    upstreamCount += captured.length;
    reached += outcome.reached;
    callCount += outcome.calls;
  }
  return { units, client, upstream: upstreamCount, reached: callCount === 0 ? 1 : reached / callCount };
}

/**
 * Run the bench and return its rows: the scenarios' rows, then the placement rows (the session
 * at each results size and registry size).
 *
 * @example
 * const rows = await runCacheBench({ evalDir: '../shared/eval', modelDir: 'models/use-lite' })
 */
export async function runCacheBench(options: CacheBenchOptions): Promise<BenchRow[]> {
  const data = loadData(options.evalDir, options.conversations ?? 24);
  const servers = await startServers(options.modelDir, undefined);
  const { plain, caching } = servers;
  const rows: BenchRow[] = [];
  const sets: { name: string; scenarios: Scenario[]; results: readonly number[] }[] = [
    { name: 'bfcl_multi_turn', scenarios: data.conversations, results: options.bfclResults ?? [200, 2000] },
    { name: 'session 10×3', scenarios: [data.session], results: options.sessionResults ?? [200, 2000, 5000] },
  ];
  const sizes = options.toolCounts ?? [30, 128, 1000];
  try {
    for (const set of sets) {
      for (const results of set.results) {
        for (const size of sizes) {
          for (const cached of [true, false]) {
            for (const provider of ['anthropic', 'openai'] as const) {
              const placement = provider === 'anthropic' && cached ? 'several' : undefined;
              const units = {} as Record<BenchPolicy, number>;
              const reachedShare = {} as Record<BenchPolicy, number>;
              const requests = {} as Record<BenchPolicy, { client: number; upstream: number }>;
              for (const policy of ['all', 'narrow', 'default'] as const) {
                const biller = new CacheBiller({
                  provider,
                  cached,
                  ...(provider === 'openai' && options.openaiRead !== undefined ? { read: options.openaiRead } : {}),
                });
                const server = provider === 'openai' && cached && policy === 'default' ? caching : plain;
                const outcome = await replayBilled(
                  server,
                  set.scenarios,
                  (scenario) => registryFor(data, scenario, size),
                  results,
                  provider,
                  placement,
                  policy,
                  [biller],
                );
                units[policy] = outcome.units[0] as number;
                reachedShare[policy] = outcome.reached;
                requests[policy] = { client: outcome.client, upstream: outcome.upstream };
              }
              const row: BenchRow = {
                table: 'policies',
                scenario: set.name,
                tools: size,
                results,
                cached,
                provider,
                wire: provider,
                ...(placement ? { placement } : {}),
                requests,
                units,
                reached: reachedShare,
              };
              rows.push(row);
              options.onRow?.(row);
            }
          }
        }
      }
    }
    for (const results of options.sessionResults ?? [200, 2000, 5000]) {
      for (const size of sizes) {
        const session = data.session;
        const registry = registryFor(data, session, size);
        rows.push(
          ...(await placementRows(
            plain,
            'session 10×3',
            session,
            registry,
            results,
            options.openaiRead,
            options.onRow,
          )),
        );
      }
    }
  } finally {
    await servers.close();
  }
  return rows;
}

/** The placement rows of one scenario at one results size: each placement under both rules. */
async function placementRows(
  server: RunningServer,
  name: string,
  scenario: Scenario,
  registry: readonly ToolSchema[],
  results: number,
  openaiRead: number | undefined,
  onRow: ((row: BenchRow) => void) | undefined,
  placements: readonly Placement[] = PLACEMENTS,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const providers = ['anthropic', 'openai'] as const;
  for (const placement of placements) {
    const units = providers.map(() => ({}) as Record<BenchPolicy, number>);
    const reached = {} as Record<BenchPolicy, number>;
    const requests = {} as Record<BenchPolicy, { client: number; upstream: number }>;
    for (const policy of ['all', 'narrow', 'default'] as const) {
      // The same Messages bodies, billed as Anthropic bills them and as an upstream that caches every prefix would.
      const billers = providers.map(
        (provider) =>
          new CacheBiller({
            provider,
            cached: true,
            ...(provider === 'openai' && openaiRead !== undefined ? { read: openaiRead } : {}),
          }),
      );
      const outcome = await replayBilled(
        server,
        [scenario],
        () => registry,
        results,
        'anthropic',
        placement,
        policy,
        billers,
      );
      providers.forEach((_, i) => {
        (units[i] as Record<BenchPolicy, number>)[policy] = outcome.units[i] as number;
      });
      reached[policy] = outcome.reached;
      requests[policy] = { client: outcome.client, upstream: outcome.upstream };
    }
    providers.forEach((provider, i) => {
      const row: BenchRow = {
        table: 'placements',
        scenario: name,
        tools: registry.length,
        results,
        cached: true,
        provider,
        wire: 'anthropic',
        placement,
        requests,
        units: units[i] as Record<BenchPolicy, number>,
        reached,
      };
      rows.push(row);
      onRow?.(row);
    });
  }
  return rows;
}

/** Options for {@link runPlacementBench}. */
export interface PlacementBenchOptions {
  /** The conversation replayed once per placement and policy. */
  readonly scenario: Scenario;
  /** The client's tools. */
  readonly tools: readonly ToolSchema[];
  /** Tokens per tool result. Default 2000. */
  readonly results?: number;
  /** Default every placement. */
  readonly placements?: readonly Placement[];
  /** The USE-lite model folder; without one the proxy runs without an embedder. */
  readonly modelDir?: string;
  /** The proxy's selector (`PROXY_SELECTOR`). Default the proxy's own default. */
  readonly selector?: string;
  /** OpenAI's cached-input price, as a share of the uncached one. Default 0.25. */
  readonly openaiRead?: number;
}

/**
 * The placement rows alone, for a scenario and registry of the caller's: every placement on the
 * Messages wire, each billed under Anthropic's and OpenAI's rules.
 *
 * @example
 * const rows = await runPlacementBench({ scenario, tools: wideToolSet(), selector: 'bm25' })
 * rows.every((row) => row.units.default <= row.units.all)
 */
export async function runPlacementBench(options: PlacementBenchOptions): Promise<BenchRow[]> {
  const servers = await startServers(options.modelDir, options.selector);
  try {
    return await placementRows(
      servers.plain,
      options.scenario.id,
      options.scenario,
      options.tools,
      options.results ?? 2000,
      options.openaiRead,
      undefined,
      options.placements,
    );
  } finally {
    await servers.close();
  }
}
