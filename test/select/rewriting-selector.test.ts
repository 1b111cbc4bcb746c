import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import type { Message } from '../../src/message.js';
import type { ModelClient } from '../../src/model/client.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { parseToolAnswer, type ToolAnswer } from '../../src/select/parse-tool-answer.js';
import { buildRewritePrompt, REWRITE_EXCERPT_BYTES, toolSummary } from '../../src/select/rewrite-prompt.js';
import { RewritingSelector } from '../../src/select/rewriting-selector.js';
import type { AsyncToolSelector, SelectionContext } from '../../src/select/selector.js';
import { truncateUtf8 } from '../../src/text/truncate-utf8.js';
import {
  anthropic,
  body,
  collect,
  ofType,
  onTurn,
  openAI,
  toolbox,
  useScriptedServer,
  wireToolNames,
} from '../loop/helpers.js';
import type { ScriptedMessage } from '../support/scripted-model-server.js';
import { holdUnreachablePort } from '../support/unreachable-port.js';

// Two servers, as in production: a small model picks the tools, a larger one runs the loop.
const picker = useScriptedServer();
const model = useScriptedServer();

const PROMPT = 'What is the weather in Oslo?';
const ALL = toolbox().registry.schemas(); // get_weather, search_docs, send_email, lookup_order
const NAMES = ALL.map((tool) => tool.name);

const names = (tools: readonly ToolSchema[]) => tools.map((tool) => tool.name);
const live = () => ({ signal: new AbortController().signal });

function pickerClient(options: Parameters<typeof openAI>[1] = {}): ModelClient {
  return openAI(picker.current, { model: 'picker-small', ...options });
}

function ctx(
  turn = 1,
  conversation: readonly Message[] = [{ role: 'user', content: PROMPT }],
  prompt: string | undefined = PROMPT,
): SelectionContext {
  return { turn, latestUserMessage: prompt, conversation };
}

/** A selection answer with fixed usage, so budget arithmetic is exact. */
function answer(text: string, usage = { inputTokens: 50, outputTokens: 10 }): ScriptedMessage {
  return { text, usage };
}

describe('truncateUtf8', () => {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('keeps text that fits and cuts ASCII at the byte cap', () => {
    expect(truncateUtf8('hello', 10)).toBe('hello');
    expect(truncateUtf8('hello', 5)).toBe('hello');
    expect(truncateUtf8('hello', 3)).toBe('hel');
  });

  it('never splits a multi-byte character (2, 3 and 4 bytes)', () => {
    expect(truncateUtf8('héllo', 1)).toBe('h');
    expect(truncateUtf8('héllo', 2)).toBe('h'); // é is 2 bytes
    expect(truncateUtf8('héllo', 3)).toBe('hé');
    expect(truncateUtf8('€€€', 7)).toBe('€€'); // 3 bytes each
    expect(truncateUtf8('日本語', 8)).toBe('日本');
    expect(truncateUtf8('a😀b', 4)).toBe('a'); // the emoji is a 4-byte surrogate pair
    expect(truncateUtf8('a😀b', 5)).toBe('a😀');
    expect(truncateUtf8('a😀b', 6)).toBe('a😀b');
  });

  it('gives the longest prefix within the cap for every cap, on mixed text', () => {
    const text = 'Ωμέγα 日本 😀 café 👩‍💻 x';
    const points = [...text];
    for (let cap = 0; cap <= bytes(text) + 2; cap++) {
      const cut = truncateUtf8(text, cap);
      expect(text.startsWith(cut)).toBe(true);
      expect(bytes(cut)).toBeLessThanOrEqual(cap);
      expect(cut).not.toMatch(/[\uD800-\uDBFF]$/); // no half of a surrogate pair
      const taken = [...cut].length;
      if (taken < points.length) expect(bytes(cut + points[taken])).toBeGreaterThan(cap); // maximal
    }
  });

  it('counts a lone surrogate as the 3-byte U+FFFD it encodes to; non-positive caps give ""', () => {
    expect(truncateUtf8('\uD800x', 3)).toBe('\uD800');
    expect(truncateUtf8('\uD800x', 2)).toBe('');
    expect(truncateUtf8('abc', 0)).toBe('');
    expect(truncateUtf8('abc', -4)).toBe('');
    expect(truncateUtf8('abc', Number.NaN)).toBe('');
  });
});

describe('parseToolAnswer', () => {
  const known = ['get_weather', 'search_docs', 'send_email', 'lookup_order', 'math.factorial'];
  const cases: [string, string, ToolAnswer][] = [
    [
      'a JSON array',
      '["send_email", "get_weather"]',
      { kind: 'names', names: ['send_email', 'get_weather'], unknown: [] },
    ],
    [
      'a JSON object with a list field',
      '{"tools": ["search_docs"]}',
      { kind: 'names', names: ['search_docs'], unknown: [] },
    ],
    [
      'objects with a name',
      '{"selected": [{"name": "lookup_order", "why": "order"}]}',
      { kind: 'names', names: ['lookup_order'], unknown: [] },
    ],
    [
      'a bullet list',
      '- get_weather\n- send_email',
      { kind: 'names', names: ['get_weather', 'send_email'], unknown: [] },
    ],
    [
      'a numbered list',
      '1. get_weather\n2. search_docs',
      { kind: 'names', names: ['get_weather', 'search_docs'], unknown: [] },
    ],
    [
      'comma-separated',
      'get_weather, send_email',
      { kind: 'names', names: ['get_weather', 'send_email'], unknown: [] },
    ],
    ['prose', 'You will want get_weather for this.', { kind: 'names', names: ['get_weather'], unknown: [] }],
    ['a code fence', '```json\n["lookup_order"]\n```', { kind: 'names', names: ['lookup_order'], unknown: [] }],
    [
      'JSON wrapped in prose',
      'Here you go: ["get_weather"] (hope it helps)',
      { kind: 'names', names: ['get_weather'], unknown: [] },
    ],
    [
      'a Python-style list',
      "['get_weather', 'send_email']",
      { kind: 'names', names: ['get_weather', 'send_email'], unknown: [] },
    ],
    [
      'a reasoning block first',
      '<think>maybe send_email?</think>\n["get_weather"]',
      { kind: 'names', names: ['get_weather'], unknown: [] },
    ],
    ['the wire form of a dotted name', '["math_factorial"]', { kind: 'names', names: ['math.factorial'], unknown: [] }],
    [
      'known plus unknown names',
      '["get_weather", "delete_everything"]',
      { kind: 'names', names: ['get_weather'], unknown: ['delete_everything'] },
    ],
    [
      'only unknown names',
      '["delete_everything", "Get_Weather"]',
      { kind: 'none', unknown: ['delete_everything', 'Get_Weather'] },
    ],
    ['another case', 'GET_WEATHER', { kind: 'none', unknown: [] }],
    [
      'a name inside a longer identifier',
      'search and search_docs_v2 and my.get_weather',
      { kind: 'none', unknown: [] },
    ],
    ['a registered prefix of a dotted name', 'math', { kind: 'none', unknown: [] }],
    ['an empty JSON array', '[]', { kind: 'empty' }],
    ['an empty list field', '{"tools": []}', { kind: 'empty' }],
    ['"none"', 'None.', { kind: 'empty' }],
    ['a list holding "none"', '["none"]', { kind: 'empty' }],
    ['"no tools are needed"', 'No tools are needed for this step.', { kind: 'empty' }],
    ['garbage', 'Sure! Happy to help with that.', { kind: 'none', unknown: [] }],
    ['a number', '42', { kind: 'none', unknown: [] }],
    ['nothing', '   ', { kind: 'none', unknown: [] }],
  ];
  it.each(cases)('%s', (_label, text, expected) => {
    expect(parseToolAnswer(text, known)).toEqual(expected);
  });

  it("a registered name wins over another name's wire form", () => {
    expect(parseToolAnswer('["a_b"]', ['a.b', 'a_b'])).toEqual({ kind: 'names', names: ['a_b'], unknown: [] });
    expect(parseToolAnswer('["a.b"]', ['a.b', 'a_b'])).toEqual({ kind: 'names', names: ['a.b'], unknown: [] });
  });

  it('a tool really named "none" is a name, not a refusal', () => {
    expect(parseToolAnswer('["none"]', ['none', 'get_weather'])).toEqual({
      kind: 'names',
      names: ['none'],
      unknown: [],
    });
  });
});

describe('the rewrite prompt', () => {
  const weather: ToolSchema = {
    name: 'get_weather',
    description: 'Current weather conditions for a place. Backed by the met.no API with hourly refresh.',
    parameters: {
      type: 'object',
      properties: { postcode_or_town: { type: 'string', description: 'Where.' } },
      required: ['postcode_or_town'],
    },
  };
  const tools: ToolSchema[] = [weather, ...ALL.filter((tool) => tool.name !== 'get_weather')];

  it('one small non-streaming call: summaries, never schemas; no tools on the call; temperature 0', async () => {
    picker.current.enqueue(answer('["get_weather"]'));
    const output = await new RewritingSelector(pickerClient()).select(ctx(), tools, live());
    expect(names(output.tools)).toEqual(['get_weather']);
    expect(picker.current.requests).toHaveLength(1);
    const request = picker.current.requests[0];
    const json = body(request);
    expect(request?.stream).toBe(false);
    expect(json).not.toHaveProperty('tools');
    expect(json).not.toHaveProperty('tool_choice');
    expect(json.temperature).toBe(0);
    expect(json.max_tokens).toBeLessThanOrEqual(256);
    expect(json.model).toBe('picker-small');
    // No schema leaks in: no parameters, properties, property names or required lists.
    for (const leak of ['parameters', 'properties', 'postcode_or_town', 'required', 'met.no']) {
      expect(request?.rawBody).not.toContain(leak);
    }
    const user = (json.messages as { role: string; content: string }[]).find((m) => m.role === 'user')?.content ?? '';
    expect(user).toContain('- get_weather: Current weather conditions for a place.');
    for (const tool of ALL) expect(user).toContain(`- ${tool.name}: `);
    expect(user).toContain(`Task:\n${PROMPT}`);
  });

  it('a summary is the first sentence, capped', () => {
    expect(toolSummary('Read a file. Then more detail.')).toBe('Read a file.');
    expect(toolSummary('No full stop here')).toBe('No full stop here');
    expect(toolSummary('Version 1.2 of the reader.  Second.')).toBe('Version 1.2 of the reader.');
    expect(toolSummary(undefined)).toBe('');
    const long = toolSummary(`${'日本語 '.repeat(100)}.`);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(160);
    expect(long.endsWith('…')).toBe(true);
  });

  it('excerpts the last few messages, each capped at 400 bytes (multi-byte text cut on a code point)', () => {
    const big = 'Ωμέγα 日本 😀 café '.repeat(200);
    const conversation: Message[] = [
      { role: 'system', content: 'System prompt stays out.' },
      { role: 'user', content: 'Memory: an older note that falls outside the window.' },
      { role: 'user', content: PROMPT },
      { role: 'assistant', content: big, toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: big },
      { role: 'assistant', content: 'Short reply.' },
      { role: 'user', content: `Attachment: ${big}`, transient: true },
    ];
    const prompt = buildRewritePrompt(ctx(3, conversation), ALL) ?? '';
    const section = prompt.split('Recent conversation (oldest first):\n')[1]?.split('\n\n')[0] ?? '';
    const lines = section.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^assistant: \[called get_weather\] Ωμέγα/);
    expect(lines[1]).toMatch(/^tool get_weather: Ωμέγα/);
    expect(lines[2]).toBe('assistant: Short reply.');
    expect(lines[3]).toMatch(/^user: Attachment: /);
    for (const line of lines) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(REWRITE_EXCERPT_BYTES);
      expect(line).not.toContain('\uFFFD');
    }
    expect(lines.filter((line) => line.endsWith('…'))).toHaveLength(3);
    expect(Buffer.byteLength(lines[0] as string)).toBeGreaterThan(REWRITE_EXCERPT_BYTES - 8); // filled, not over-cut
    expect(prompt).not.toContain('System prompt stays out.');
    expect(prompt).not.toContain('older note');
    expect(prompt.split(PROMPT)).toHaveLength(2); // the run prompt once, in its own section
  });

  it('the run prompt is bounded too', () => {
    const prompt = buildRewritePrompt(ctx(1, [], '日本語'.repeat(2_000)), ALL) ?? '';
    const task = prompt.split('Task:\n')[1]?.split('\n')[0] ?? '';
    expect(Buffer.byteLength(task)).toBeLessThanOrEqual(2_000);
    expect(task.endsWith('…')).toBe(true);
  });

  it('works over the Anthropic protocol too (strict server accepts the call)', async () => {
    picker.current.enqueue(answer('get_weather and lookup_order'));
    const selector = new RewritingSelector(anthropic(picker.current, { model: 'picker-haiku' }));
    const output = await selector.select(ctx(), ALL, live());
    expect(names(output.tools)).toEqual(['get_weather', 'lookup_order']);
    const request = picker.current.requests[0];
    expect(request?.rejected).toBeUndefined();
    expect(body(request).system).toMatch(/JSON array of tool names/);
    expect(body(request)).not.toHaveProperty('tools');
  });
});

describe('answers in several formats, exact names only, registry order', () => {
  const formats: [string, string, string[]][] = [
    ['JSON array', '["send_email", "get_weather"]', ['get_weather', 'send_email']],
    ['bullet list', '- lookup_order\n- search_docs', ['search_docs', 'lookup_order']],
    ['comma-separated', 'send_email, get_weather', ['get_weather', 'send_email']],
    ['prose', 'I would offer lookup_order here.', ['lookup_order']],
    ['fenced', '```\n{"tools": ["search_docs", "get_weather"]}\n```', ['get_weather', 'search_docs']],
    ['with an invented name', '["send_email", "delete_everything"]', ['send_email']],
  ];
  it.each(formats)('%s', async (_label, text, expected) => {
    picker.current.enqueue(answer(text));
    const output = await new RewritingSelector(pickerClient()).select(ctx(), ALL, live());
    expect(output.fellOpen).toBeUndefined();
    expect(names(output.tools)).toEqual(expected);
    const selection = applySelection(output, ALL);
    expect(selection.names).toEqual(expected);
    expect(selection.dropped).toEqual([]);
    if (text.includes('delete_everything'))
      expect(output.warnings?.[0]).toMatch(/not in the registry, ignored: delete_everything/);
  });

  it('core tools join a non-empty selection', async () => {
    picker.current.enqueue(answer('["get_weather"]'));
    const output = await new RewritingSelector(pickerClient())
      .withCoreTools(['lookup_order', 'not_registered'])
      .select(ctx(), ALL, live());
    expect(names(output.tools)).toEqual(['get_weather', 'lookup_order']);
    expect(output.reasons?.lookup_order).toEqual({ core: true });
  });
});

describe('fails open, with the cause', () => {
  it('a slow answer past the timeout: full surface, quickly, and the request is closed', async () => {
    picker.current.enqueue({ ...answer('["get_weather"]'), delayMs: 5_000 });
    const started = performance.now();
    const output = await new RewritingSelector(pickerClient()).withTimeout(150).select(ctx(), ALL, live());
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(output.tools).toEqual(ALL);
    expect(output.fellOpen).toBe('rewrite call timed out after 150 ms');
    expect(await picker.current.requests[0]?.settled).toBe('client-closed');
  });

  it('a hung server past the timeout', async () => {
    picker.current.enqueue({ kind: 'hang' });
    const output = await new RewritingSelector(pickerClient(), { timeoutMs: 100 }).select(ctx(), ALL, live());
    expect(output.fellOpen).toMatch(/timed out after 100 ms/);
    expect(output.tools).toEqual(ALL);
  });

  it("500s after the client's retries", async () => {
    picker.current.enqueue(
      { kind: 'error', status: 500, message: 'boom' },
      { kind: 'error', status: 500, message: 'boom' },
    );
    const client = pickerClient({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, jitter: 0 } });
    const output = await new RewritingSelector(client).select(ctx(), ALL, live());
    expect(picker.current.requests).toHaveLength(2);
    expect(output.tools).toEqual(ALL);
    expect(output.fellOpen).toBe('rewrite call failed: openai HTTP 500: boom');
  });

  it('a 429 the retries ride out selects normally; a persistent 429 falls open', async () => {
    const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 20, jitter: 0 };
    picker.current.enqueue(
      { kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after-ms': '5' } },
      answer('["search_docs"]'),
    );
    const ok = await new RewritingSelector(pickerClient({ retry })).select(ctx(), ALL, live());
    expect(names(ok.tools)).toEqual(['search_docs']);

    picker.current.enqueue({ kind: 'error', status: 429, message: 'slow down' });
    const refused = await new RewritingSelector(pickerClient({ retry: { maxAttempts: 1 } })).select(ctx(), ALL, live());
    expect(refused.tools).toEqual(ALL);
    expect(refused.fellOpen).toBe('rewrite call failed: openai HTTP 429: slow down');
  });

  it('a transport error (the connection reset)', async () => {
    const unreachable = await holdUnreachablePort();
    try {
      const client = openAI(picker.current, { baseURL: `${unreachable.origin}/v1`, retry: { maxAttempts: 1 } });
      const output = await new RewritingSelector(client).select(ctx(), ALL, live());
      expect(output.tools).toEqual(ALL);
      expect(output.fellOpen).toMatch(/^rewrite call failed: openai request failed/);
    } finally {
      await unreachable.close();
    }
  });

  it('a 200 whose body is not JSON', async () => {
    picker.current.enqueue({
      kind: 'raw',
      headers: { 'content-type': 'application/json' },
      chunks: ['<html>oops</html>'],
    });
    const output = await new RewritingSelector(pickerClient()).select(ctx(), ALL, live());
    expect(output.tools).toEqual(ALL);
    expect(output.fellOpen).toMatch(/^rewrite call failed: /);
  });

  it('an answer naming only unregistered or mis-cased names', async () => {
    picker.current.enqueue(answer('["delete_everything", "Get_Weather"]'));
    const output = await new RewritingSelector(pickerClient()).select(ctx(), ALL, live());
    expect(output.tools).toEqual(ALL);
    expect(output.fellOpen).toBe('the answer named no registered tool (it named "delete_everything", "Get_Weather")');
  });

  it('a garbage answer, and an answer cut off at maxTokens', async () => {
    picker.current.enqueue(answer('Sure! Let me think about which tools'), {
      ...answer('The best tool would be'),
      finishReason: 'length',
    });
    const selector = new RewritingSelector(pickerClient());
    const garbage = await selector.select(ctx(), ALL, live());
    expect(garbage.fellOpen).toBe('the answer named no tool: "Sure! Let me think about which tools"');
    const cut = await selector.select(ctx(), ALL, live());
    expect(cut.fellOpen).toMatch(/cut off at maxTokens/);
    expect(cut.tools).toEqual(ALL);
  });

  it('nothing to select for: no call at all; an empty registry selects nothing', async () => {
    const selector = new RewritingSelector(pickerClient());
    const output = await selector.select({ turn: 1, latestUserMessage: undefined, conversation: [] }, ALL, live());
    expect(output.fellOpen).toMatch(/no prompt to select for/);
    expect(await selector.select(ctx(), [], live())).toEqual({ tools: [] });
    expect(picker.current.requests).toHaveLength(0);
  });
});

describe('allowEmpty', () => {
  it('an intentional "no tool" answer is empty only when the caller opts in', async () => {
    picker.current.enqueue(answer('[]'), answer('[]'), answer('No tools are needed.'));
    const strict = await new RewritingSelector(pickerClient()).select(ctx(), ALL, live());
    expect(strict.tools).toEqual(ALL);
    expect(strict.fellOpen).toMatch(/allowEmpty is off/);

    const opted = new RewritingSelector(pickerClient()).withAllowEmpty().withCoreTools(['lookup_order']);
    expect(opted.allowEmpty).toBe(true);
    const empty = await opted.select(ctx(), ALL, live());
    expect(empty).toEqual({ tools: [] });
    expect(await opted.select(ctx(), ALL, live())).toEqual({ tools: [] });
  });

  it('emptiness from inability to rank never yields an empty selection, even with allowEmpty', async () => {
    picker.current.enqueue(answer('hmm'), { kind: 'error', status: 500 });
    const selector = new RewritingSelector(pickerClient({ retry: { maxAttempts: 1 } }), { allowEmpty: true });
    for (let i = 0; i < 2; i++) {
      const output = await selector.select(ctx(), ALL, live());
      expect(output.tools).toEqual(ALL);
      expect(output.fellOpen).toBeDefined();
    }
  });
});

describe('budget', () => {
  it('usage feeds the gate; after a hard token crossing the selector stops calling for the run', async () => {
    picker.current.enqueue(answer('["get_weather"]'), answer('["send_email"]'));
    const selector = new RewritingSelector(pickerClient()).withBudget({ maxTokens: 100 });
    const conversation: Message[] = [{ role: 'user', content: PROMPT }];
    expect(names((await selector.select(ctx(1, conversation), ALL, live())).tools)).toEqual(['get_weather']); // 60 used
    expect(names((await selector.select(ctx(2, conversation), ALL, live())).tools)).toEqual(['send_email']); // 120 used
    for (const turn of [3, 4]) {
      const refused = await selector.select(ctx(turn, conversation), ALL, live());
      expect(refused.tools).toEqual(ALL);
      expect(refused.fellOpen).toBe('budget exhausted: 120 of 100 tokens (tokens)');
    }
    expect(picker.current.requests).toHaveLength(2);

    // A new run starts a new budget.
    picker.current.enqueue(answer('["lookup_order"]'));
    expect(names((await selector.select(ctx(1, [{ role: 'user', content: PROMPT }]), ALL, live())).tools)).toEqual([
      'lookup_order',
    ]);
  });

  it('calls (maxTurns) and wall-clock (time spent waiting on calls) are limits too', async () => {
    picker.current.enqueue(answer('["get_weather"]'));
    const calls = new RewritingSelector(pickerClient(), { budget: { maxTurns: 1 } });
    await calls.select(ctx(1), ALL, live());
    expect((await calls.select(ctx(2), ALL, live())).fellOpen).toBe('budget exhausted: 1 of 1 turns (turns)');

    picker.current.enqueue({ ...answer('["get_weather"]'), delayMs: 120 });
    const clock = new RewritingSelector(pickerClient()).withBudget({ maxWallClockMs: 50 });
    expect(names((await clock.select(ctx(1), ALL, live())).tools)).toEqual(['get_weather']);
    expect((await clock.select(ctx(2), ALL, live())).fellOpen).toMatch(
      /^budget exhausted: \d+ of 50 ms \(wall_clock\)$/,
    );
    expect(picker.current.requests).toHaveLength(2);
  });

  it('the gate is per run: turns find their run by the first message, even when runs interleave', async () => {
    const selector = new RewritingSelector(pickerClient(), { budget: { maxTurns: 2 } });
    const runA: Message[] = [{ role: 'user', content: PROMPT }];
    const runB: Message[] = [{ role: 'user', content: PROMPT }];
    picker.current.enqueue(
      answer('["get_weather"]'),
      answer('["get_weather"]'),
      answer('["send_email"]'),
      answer('["send_email"]'),
    );
    await selector.select(ctx(1, runA), ALL, live());
    await selector.select(ctx(2, runA), ALL, live());
    await selector.select(ctx(1, runB), ALL, live());
    expect((await selector.select(ctx(3, runA), ALL, live())).fellOpen).toMatch(/budget exhausted: 2 of 2 turns/);
    expect((await selector.select(ctx(2, runB), ALL, live())).fellOpen).toBeUndefined();
    expect(picker.current.requests).toHaveLength(4);
  });

  it('rejects bad configuration up front', () => {
    expect(() => new RewritingSelector(pickerClient(), { budget: { maxTokens: -1 } })).toThrow(RangeError);
    expect(() => new RewritingSelector(pickerClient()).withTimeout(0)).toThrow(RangeError);
    expect(() => new RewritingSelector(pickerClient(), { maxTokens: 1.5 })).toThrow(RangeError);
  });
});

describe("the caller's abort is not a failure", () => {
  it("aborting mid-call rejects with the signal's reason (no fall-open) and closes the request", async () => {
    picker.current.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const reason = new Error('the user went away');
    const pending = new RewritingSelector(pickerClient()).select(ctx(), ALL, { signal: controller.signal });
    await picker.current.waitForRequests(1);
    const abortedAt = performance.now();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(await picker.current.requests[0]?.settled).toBe('client-closed');
  });

  it('a signal aborted beforehand rejects without a call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already gone'));
    await expect(
      new RewritingSelector(pickerClient()).select(ctx(), ALL, { signal: controller.signal }),
    ).rejects.toThrow('already gone');
    expect(picker.current.requests).toHaveLength(0);
  });

  it('a client that ignores its signal still cannot hold the selector past an abort or the timeout', async () => {
    const stuck: ModelClient = {
      provider: 'openai',
      model: 'stuck',
      buildBody: () => '{}',
      stream: () => (async function* () {})(),
      complete: () => new Promise(() => undefined),
    };
    const timedOut = await new RewritingSelector(stuck, { timeoutMs: 50 }).select(ctx(), ALL, live());
    expect(timedOut.fellOpen).toBe('rewrite call timed out after 50 ms');
    const controller = new AbortController();
    const pending = new RewritingSelector(stuck).select(ctx(), ALL, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('through BareLoop', () => {
  /** Counts how often the loop consults the selector. */
  function counting(inner: AsyncToolSelector): AsyncToolSelector & { calls: number[] } {
    const calls: number[] = [];
    return {
      name: inner.name ?? 'counted',
      calls,
      select: (c, all, options) => {
        calls.push(c.turn);
        return inner.select(c, all, options);
      },
    };
  }

  it('a small model selects, a larger one runs: once per turn, its answer on the wire', async () => {
    const { registry, calls } = toolbox();
    picker.current.enqueue(answer('["get_weather"]'), answer('get_weather, send_email'), answer('[]'));
    model.current.enqueue(
      { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { toolCalls: [{ id: 'c2', name: 'send_email', arguments: { to: 'bob', body: 'Sunny' } }] },
      { text: 'Sent.' },
    );
    const selector = counting(new RewritingSelector(pickerClient()).withAllowEmpty());
    const loop = new BareLoop({
      client: openAI(model.current, { model: 'run-large' }),
      registry,
      config: { constraint: ToolConstraint.Strict },
    }).withAsyncToolSelector(selector);
    const events = await collect(loop.run(PROMPT));

    expect(selector.calls).toEqual([1, 2, 3]);
    expect(picker.current.requests.map((r) => body(r).model)).toEqual(['picker-small', 'picker-small', 'picker-small']);
    expect(model.current.requests.map((r) => body(r).model)).toEqual(['run-large', 'run-large', 'run-large']);
    expect(onTurn(events, 'selection', 1)).toMatchObject({
      selector: 'rewriting',
      advertised: ['get_weather'],
      fellOpen: null,
    });
    expect(onTurn(events, 'selection', 2).advertised).toEqual(['get_weather', 'send_email']);
    expect(onTurn(events, 'selection', 3).advertised).toEqual([]);
    expect(model.current.requests.map(wireToolNames)).toEqual([
      ['get_weather'],
      ['get_weather', 'send_email'],
      undefined,
    ]);
    expect(calls.map((call) => call.name)).toEqual(['get_weather', 'send_email']);
    // Turn 2's rewrite saw the tool result of turn 1.
    expect(body(picker.current.requests[1]).messages[1].content).toContain('tool get_weather: Sunny in Oslo');
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('a fall-open becomes a warning event; the budget spans the run and resets for the next one', async () => {
    const { registry } = toolbox();
    const selector = new RewritingSelector(pickerClient()).withBudget({ maxTokens: 100 });
    const loop = new BareLoop({ client: openAI(model.current), registry }).withAsyncToolSelector(selector);
    for (let run = 0; run < 2; run++) {
      picker.current.enqueue(answer('["get_weather"]', { inputTokens: 100, outputTokens: 20 }));
      model.current.enqueue(
        { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { toolCalls: [{ id: 'c2', name: 'get_weather', arguments: { city: 'Bergen' } }] },
        { text: 'Done.' },
      );
      const events = await collect(loop.run(PROMPT));
      expect(onTurn(events, 'selection', 1).advertised).toEqual(['get_weather']);
      for (const turn of [2, 3]) {
        expect(onTurn(events, 'selection', turn)).toMatchObject({
          advertised: NAMES,
          fellOpen: 'budget exhausted: 120 of 100 tokens (tokens)',
        });
        expect(
          ofType(events, 'warning')
            .filter((w) => w.turn === turn)
            .map((w) => w.message),
        ).toEqual(['selector fell open: budget exhausted: 120 of 100 tokens (tokens)']);
      }
    }
    expect(picker.current.requests).toHaveLength(2); // one per run
  });

  it('cancelling the run mid-selection ends it at once, with no model request', async () => {
    const { registry } = toolbox();
    picker.current.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const run = new BareLoop({ client: openAI(model.current), registry })
      .withAsyncToolSelector(new RewritingSelector(pickerClient()))
      .run(PROMPT, { signal: controller.signal });
    await picker.current.waitForRequests(1);
    controller.abort();
    const events = await collect(run);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(ofType(events, 'error')).toEqual([]);
    expect(model.current.requests).toHaveLength(0);
    expect(await picker.current.requests[0]?.settled).toBe('client-closed');
  });
});
