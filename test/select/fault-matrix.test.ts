/**
 * The fault matrix: every built-in selector through every fault that applies to it, each
 * cell a real BareLoop run (Strict) against the scripted model server. The expectations come
 * from `fault-table.ts`, the same table `docs/fault-matrix.md` is rendered from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder, EmbedOptions } from '../../src/embed/embedder.js';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import type { LoopEvent } from '../../src/loop/events.js';
import type { ModelClient } from '../../src/model/client.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { RewritingSelector } from '../../src/select/rewriting-selector.js';
import type { AsyncToolSelector, SelectorOutput, SelectorResult, ToolSelector } from '../../src/select/selector.js';
import { bagOfWords } from '../embed/counting-embedder.js';
import { body, ofType, onTurn, openAI, toolbox, useScriptedServer, wireToolNames } from '../loop/helpers.js';
import type { ScriptedReply } from '../support/scripted-model-server.js';
import { holdUnreachablePort, type UnreachablePort } from '../support/unreachable-port.js';
import {
  type Cell,
  FAULT_TABLE,
  type FaultId,
  MATRIX,
  renderFaultMatrix,
  SELECTOR_IDS,
  type SelectorId,
  SYSTEM_FAULTS,
} from './fault-table.js';

const picker = useScriptedServer(); // the rewriting selector's model
const model = useScriptedServer(); // the run's model
// Where the 'throws' cells point the rewriting selector's model: a held port that resets.
let unreachable: UnreachablePort;
beforeAll(async () => {
  unreachable = await holdUnreachablePort();
});
afterAll(() => unreachable.close());

const PROMPT = 'What is the weather in Oslo?';
const NAMES = toolbox()
  .registry.schemas()
  .map((tool) => tool.name);
const INVENTED: ToolSchema = {
  name: 'delete_everything',
  description: 'Wipe everything.',
  parameters: { type: 'object' },
};
const FORGED_DESCRIPTION = 'Send money to anyone.';

// Any rejection nobody handled, anywhere in the process, fails the cell that caused it.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));
afterEach(async () => {
  // Let abandoned promises settle so a late rejection is caught here, not in another cell.
  await new Promise((resolve) => setTimeout(resolve, 30));
  const seen = unhandled.splice(0);
  expect(seen, 'unhandled rejections').toEqual([]);
});

// ---------------------------------------------------------------------------------------
// A controllable embedder

type EmbedFault = 'ok' | 'throw' | 'reject' | 'hang' | 'nan' | 'zero' | 'empty' | 'wrong-count' | 'wrong-dims';

/**
 * An {@link Embedder} whose behaviour is scripted: `fault` applies to every call, or only to
 * the query call (`onlyQuery`), the corpus embedding normally. Healthy vectors are a hashed
 * bag of words, so ranking is real.
 */
class ScriptedEmbedder implements Embedder {
  readonly id = `test/scripted-${MATRIX.dimensions}`;
  readonly dimensions: number = MATRIX.dimensions;
  calls = 0;
  /** Resolves at the first call (for cancelling mid-selection). */
  readonly called: Promise<void>;
  #markCalled!: () => void;

  constructor(
    readonly fault: EmbedFault = 'ok',
    readonly onlyQuery: string | undefined = undefined,
  ) {
    this.called = new Promise((resolve) => (this.#markCalled = resolve));
  }

  embed(texts: readonly string[], _options?: EmbedOptions): Promise<Float32Array[]> {
    this.calls++;
    this.#markCalled();
    const faulty = this.onlyQuery === undefined || (texts.length === 1 && texts[0] === this.onlyQuery);
    const fault = faulty ? this.fault : 'ok';
    const dims = this.dimensions;
    switch (fault) {
      case 'throw':
        throw new Error('embedder threw');
      case 'reject':
        return Promise.reject(new Error('embedding service unavailable'));
      case 'hang':
        return new Promise(() => undefined); // never settles, ignores the signal
      case 'nan':
        return Promise.resolve(texts.map(() => new Float32Array(dims).fill(Number.NaN)));
      case 'zero':
        return Promise.resolve(texts.map(() => new Float32Array(dims)));
      case 'empty':
        return Promise.resolve(texts.map(() => new Float32Array(0)));
      case 'wrong-count':
        return Promise.resolve([...texts, 'extra'].map((text) => bagOfWords(text, dims)));
      case 'wrong-dims':
        return Promise.resolve(texts.map((text) => bagOfWords(text, dims + 3)));
      default:
        return Promise.resolve(texts.map((text) => bagOfWords(text, dims)));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Scenarios: how each cell's fault is injected

type Installed = { kind: 'sync'; selector: ToolSelector } | { kind: 'async'; selector: AsyncToolSelector };

interface Scenario {
  readonly installed: Installed;
  readonly prompt: string;
  /** Replies the selection model gives, in order. */
  readonly pickerReplies: readonly ScriptedReply[];
  /** Resolves when the selection is in flight; the run is then aborted. */
  readonly cancelWhen?: () => Promise<unknown>;
}

const GOOD_ANSWER: ScriptedReply = { text: '["get_weather"]', usage: { inputTokens: 20, outputTokens: 5 } };
const FAST_RETRY = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, jitter: 0 };

function pickerClient(baseURL?: string): ModelClient {
  return openAI(picker.current, { model: 'picker-small', retry: FAST_RETRY, ...(baseURL ? { baseURL } : {}) });
}

function builtIn(
  id: SelectorId,
  options: {
    embedder?: Embedder;
    client?: ModelClient;
    core?: string[];
    budget?: number;
    embedTimeoutMs?: number;
  } = {},
): Installed {
  const coreTools = options.core ?? [];
  const timeout = options.embedTimeoutMs === undefined ? {} : { timeoutMs: options.embedTimeoutMs };
  const embedder = options.embedder ?? new ScriptedEmbedder();
  switch (id) {
    case 'keyword':
      return { kind: 'sync', selector: new KeywordSelector({ coreTools }) };
    case 'bm25':
      return { kind: 'sync', selector: new Bm25Selector({ coreTools }) };
    case 'embedding':
      return { kind: 'async', selector: new EmbeddingSelector(embedder, { topK: 2, coreTools, ...timeout }) };
    case 'hybrid':
      return { kind: 'async', selector: new HybridSelector(embedder, { topK: 2, coreTools, ...timeout }) };
    case 'rewriting': {
      const selector = new RewritingSelector(options.client ?? pickerClient(), {
        timeoutMs: MATRIX.timeoutMs,
        coreTools,
      });
      return {
        kind: 'async',
        selector: options.budget === undefined ? selector : selector.withBudget({ maxTokens: options.budget }),
      };
    }
  }
}

/** Adds an invented schema and a forged copy of a registered one to whatever `inner` selects. */
function fabricating(inner: Installed): Installed {
  const forge = (output: SelectorOutput, all: readonly ToolSchema[]): SelectorOutput => {
    const email = all.find((tool) => tool.name === 'send_email') as ToolSchema;
    return { ...output, tools: [...output.tools, INVENTED, { ...email, description: FORGED_DESCRIPTION }] };
  };
  if (inner.kind === 'sync') {
    const { selector } = inner;
    return {
      kind: 'sync',
      selector: { name: `fabricating-${selector.name}`, select: (c, a) => forge(asOutput(selector.select(c, a)), a) },
    };
  }
  const { selector } = inner;
  return {
    kind: 'async',
    selector: {
      name: `fabricating-${selector.name}`,
      select: async (c, a, o) => forge(asOutput(await selector.select(c, a, o)), a),
    },
  };
}

function asOutput(result: SelectorResult): SelectorOutput {
  return Array.isArray(result) ? { tools: result } : (result as SelectorOutput);
}

const EMBED_FAULTS: Partial<Record<FaultId, { fault: EmbedFault; queryOnly: boolean }>> = {
  throws: { fault: 'throw', queryOnly: false },
  rejects: { fault: 'reject', queryOnly: false },
  hangs: { fault: 'hang', queryOnly: false }, // with the selector's opt-in timeout
  'nan-vectors': { fault: 'nan', queryOnly: true },
  'zero-vectors': { fault: 'zero', queryOnly: true },
  'empty-vectors': { fault: 'empty', queryOnly: true },
  'wrong-count': { fault: 'wrong-count', queryOnly: true },
  garbage: { fault: 'wrong-dims', queryOnly: true },
  cancelled: { fault: 'hang', queryOnly: false },
};

async function scenario(fault: FaultId, id: SelectorId): Promise<Scenario> {
  const plain = { prompt: PROMPT, pickerReplies: id === 'rewriting' ? [GOOD_ANSWER, GOOD_ANSWER] : [] };
  if (fault === 'fabricated') return { ...plain, installed: fabricating(builtIn(id)) };

  if (id === 'embedding' || id === 'hybrid') {
    if (fault === 'unknown-names') return { ...plain, installed: builtIn(id, { core: ['not_a_tool'] }) };
    const spec = EMBED_FAULTS[fault];
    if (!spec) throw new Error(`no scenario for ${fault} × ${id}`);
    const embedder = new ScriptedEmbedder(spec.fault, spec.queryOnly ? PROMPT : undefined);
    return {
      ...plain,
      installed: builtIn(id, { embedder, ...(fault === 'hangs' ? { embedTimeoutMs: MATRIX.timeoutMs } : {}) }),
      ...(fault === 'cancelled' ? { cancelWhen: () => embedder.called } : {}),
    };
  }

  if (id === 'keyword' || id === 'bm25') {
    if (fault === 'unknown-names') return { ...plain, installed: builtIn(id, { core: ['not_a_tool'] }) };
    if (fault === 'garbage') return { ...plain, prompt: MATRIX.garbagePrompt, installed: builtIn(id) };
    throw new Error(`no scenario for ${fault} × ${id}`);
  }

  // rewriting: every fault is on turn 1 (turn 2's selection answers normally) unless noted.
  const failing = (first: ScriptedReply[]): Scenario => ({
    prompt: PROMPT,
    installed: builtIn(id),
    pickerReplies: [...first, GOOD_ANSWER],
  });
  switch (fault) {
    case 'throws':
      return {
        prompt: PROMPT,
        installed: builtIn(id, { client: pickerClient(`${unreachable.origin}/v1`) }),
        pickerReplies: [],
      };
    case 'rejects':
      return failing([
        { kind: 'error', status: 500, message: 'boom' },
        { kind: 'error', status: 500, message: 'boom' },
      ]);
    case 'hangs':
      return failing([{ kind: 'hang' }]);
    case 'unknown-names':
      return failing([{ text: '["delete_everything", "Get_Weather"]' }]);
    case 'garbage':
      return failing([{ text: 'Sure! Let me think about what would help here.' }]);
    case 'budget':
      // Turn 1 spends past the budget; turns 2 and 3 are refused without a call.
      return {
        prompt: PROMPT,
        installed: builtIn(id, { budget: MATRIX.budgetTokens }),
        pickerReplies: [
          { text: '["get_weather"]', usage: { inputTokens: MATRIX.firstAnswerTokens - 20, outputTokens: 20 } },
        ],
      };
    case 'cancelled':
      return {
        prompt: PROMPT,
        installed: builtIn(id),
        pickerReplies: [{ kind: 'hang' }],
        cancelWhen: () => picker.current.waitForRequests(1),
      };
    default:
      throw new Error(`no scenario for ${fault} × ${id}`);
  }
}

// ---------------------------------------------------------------------------------------
// Driving a cell

/** Tool turns the model plays before answering: up to and including the fault's turn. */
function toolTurns(cell: Cell): number {
  return cell.outcome === 'full-surface' && cell.turn ? cell.turn : 1;
}

/** Each tool turn the model calls a relevant tool, an often-unadvertised one and an invented one. */
function modelReplies(turns: number): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    replies.push({
      toolCalls: [
        { id: `w${turn}`, name: 'get_weather', arguments: { city: `T${turn}` } },
        { id: `e${turn}`, name: 'send_email', arguments: { to: `T${turn}`, body: 'hi' } },
        { id: `d${turn}`, name: 'delete_everything', arguments: {} },
      ],
    });
  }
  replies.push({ text: 'Done.' });
  return replies;
}

async function runCell(fault: FaultId, id: SelectorId, cell: Cell): Promise<void> {
  const plan = await scenario(fault, id);
  const { registry, calls } = toolbox();
  picker.current.enqueue(...plan.pickerReplies);
  const cancelling = cell.outcome === 'cancelled';
  if (!cancelling) model.current.enqueue(...modelReplies(toolTurns(cell)));

  const loop = new BareLoop({
    client: openAI(model.current, { model: 'run-large' }),
    registry,
    config: { constraint: ToolConstraint.Strict },
  });
  if (plan.installed.kind === 'sync') loop.withToolSelector(plan.installed.selector);
  else loop.withAsyncToolSelector(plan.installed.selector);

  const controller = new AbortController();
  let abortedAt = 0;
  if (plan.cancelWhen) {
    void plan.cancelWhen().then(() => {
      abortedAt = performance.now();
      controller.abort();
    });
  }
  const events: LoopEvent[] = [];
  let doneAt = 0;
  for await (const event of loop.run(plan.prompt, { signal: controller.signal })) {
    events.push(event);
    if (event.type === 'done') doneAt = performance.now();
  }

  checkInvariants(events, calls);
  const done = ofType(events, 'done')[0];
  switch (cell.outcome) {
    case 'cancelled': {
      expect(done?.stopReason).toBe('cancelled');
      expect(abortedAt).toBeGreaterThan(0);
      expect(doneAt - abortedAt, 'a cancelled run never waits on the selector').toBeLessThan(1_000);
      expect(ofType(events, 'request')).toEqual([]);
      expect(model.current.requests).toHaveLength(0);
      if (id === 'rewriting') expect(await picker.current.requests[0]?.settled).toBe('client-closed');
      return;
    }
    case 'full-surface': {
      const turn = cell.turn ?? 1;
      const selection = onTurn(events, 'selection', turn);
      expect(selection.advertised).toEqual(NAMES);
      expect(selection.fellOpen).toContain(cell.cause);
      expect(
        warningsOn(events, turn).some((message) => message.includes(cell.cause)),
        'a warning names the cause',
      ).toBe(true);
      if (turn > 1) expect(onTurn(events, 'selection', 1).fellOpen).toBeNull(); // the fault, not the setup
      break;
    }
    case 'lexical-only': {
      const selection = onTurn(events, 'selection', 1);
      expect(selection.fellOpen).toBeNull();
      expect(selection.advertised).toEqual(['get_weather']);
      expect(selection.reasons.get_weather?.parts).not.toHaveProperty('dense');
      // Narrowed under Strict: the model's send_email call is refused, not dispatched.
      const email = ofType(events, 'tool_call').find((event) => event.call.name === 'send_email');
      expect(email?.advertised).toBe(false);
      expect(
        warningsOn(events, 1).some((message) => message.includes(cell.cause)),
        'a warning names the degradation',
      ).toBe(true);
      break;
    }
    case 'drops-fabricated': {
      const selection = onTurn(events, 'selection', 1);
      expect(selection.advertised).not.toContain('delete_everything');
      expect(warningsOn(events, 1)).toContain('dropped 2 schema(s) not in the registry: delete_everything, send_email');
      for (const request of model.current.requests) {
        expect(request.rawBody).not.toContain(INVENTED.description);
        expect(request.rawBody).not.toContain(FORGED_DESCRIPTION);
      }
      const invented = ofType(events, 'tool_result').find((event) => event.result.name === 'delete_everything');
      expect(invented?.result).toMatchObject({ isError: true, content: expect.stringContaining('unknown tool') });
      break;
    }
    case 'ignores-unknown': {
      const selection = onTurn(events, 'selection', 1);
      expect(selection.fellOpen).toBeNull();
      expect(selection.advertised).not.toContain('not_a_tool');
      expect(selection.advertised.length).toBeGreaterThan(0);
      expect(selection.advertised.length, 'still narrowed').toBeLessThan(NAMES.length);
      expect(warningsOn(events, 1)).toEqual([]);
      expect(model.current.requests[0]?.rawBody).not.toContain('not_a_tool');
      break;
    }
    case 'n/a':
      throw new Error('n/a cells are not run');
  }
  expect(done?.stopReason).toBe('stop');
  expect(ofType(events, 'error')).toEqual([]);
}

function warningsOn(events: readonly LoopEvent[], turn: number): string[] {
  return ofType(events, 'warning')
    .filter((event) => event.turn === turn)
    .map((event) => event.message);
}

/** What holds in every cell: wire = selection, and nothing unadvertised is dispatched. */
function checkInvariants(events: readonly LoopEvent[], calls: { name: string; args: unknown }[]): void {
  const selections = ofType(events, 'selection');
  for (const selection of selections) {
    for (const name of selection.advertised) expect(NAMES).toContain(name);
    const request = model.current.requests[selection.turn - 1];
    if (request) {
      expect(request.rejected).toBeUndefined();
      expect(wireToolNames(request)).toEqual(selection.advertised.length > 0 ? selection.advertised : undefined);
      expect(body(request).model).toBe('run-large');
    }
  }
  for (const event of ofType(events, 'tool_call')) {
    const advertised = selections.find((selection) => selection.turn === event.turn)?.advertised ?? [];
    expect(event.advertised).toBe(advertised.includes(event.call.name));
    if (event.advertised) continue;
    const dispatched = calls.some(
      (call) => call.name === event.call.name && JSON.stringify(call.args) === event.call.arguments,
    );
    expect(dispatched, `${event.call.name} was not advertised on turn ${event.turn} but ran`).toBe(false);
    const result = ofType(events, 'tool_result').find((r) => r.result.toolCallId === event.call.id);
    expect(result?.result.isError).toBe(true);
    // A registered tool is refused by the Strict check; an invented one by the registry.
    expect(result?.result.content).toMatch(
      NAMES.includes(event.call.name) ? /was not offered this turn/ : /unknown tool/,
    );
  }
}

// ---------------------------------------------------------------------------------------

const cells = FAULT_TABLE.flatMap((row) =>
  SELECTOR_IDS.map((id) => ({ fault: row.id, label: row.fault, id, cell: row.cells[id] })),
);
const runnable = cells.filter((entry) => entry.cell.outcome !== 'n/a');

describe('selector fault matrix (through BareLoop, Strict, scripted model server)', { timeout: 30_000 }, () => {
  it.each(runnable)('$label × $id', async ({ fault, id, cell }) => {
    await runCell(fault, id, cell);
  });

  it("covers every selector and the hybrid's degradation, and every n/a says why", () => {
    expect(new Set(runnable.map((entry) => entry.id))).toEqual(new Set(SELECTOR_IDS));
    expect(runnable.some((entry) => entry.cell.outcome === 'lexical-only')).toBe(true);
    for (const entry of cells) if (entry.cell.outcome === 'n/a') expect(entry.cell.why.length).toBeGreaterThan(0);
  });

  it('every row around the selectors names test files that exist', () => {
    for (const row of SYSTEM_FAULTS) {
      const files = [...row.test.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
      expect(files.length, row.fault).toBeGreaterThan(0);
      for (const file of files) expect(existsSync(new URL(`../../${file}`, import.meta.url)), file).toBe(true);
    }
  });

  it('docs/fault-matrix.md is the rendered table (run `node scripts/fault-matrix-doc.mjs` after editing fault-table.ts)', () => {
    const published = readFileSync(new URL('../../docs/fault-matrix.md', import.meta.url), 'utf8');
    expect(published).toBe(renderFaultMatrix());
  });
});
