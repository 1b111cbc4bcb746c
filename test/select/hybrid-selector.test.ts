import { describe, expect, it } from 'vitest';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties },
});

const TOOLS: ToolSchema[] = [
  tool('get_weather', 'Current weather conditions and forecast for a city.', {
    city: { type: 'string', description: 'City name' },
  }),
  tool('send_email', 'Send an email message to a recipient.', { to: { type: 'string' }, subject: { type: 'string' } }),
  tool('read_file', 'Return the contents of a file.', { path: { type: 'string' } }),
  tool('search_web', 'Search the web for pages matching a query.', { query: { type: 'string' } }),
  tool('create_calendar_event', 'Create an event in the calendar.', {
    title: { type: 'string' },
    start: { type: 'string' },
  }),
  tool('list_pull_requests', 'List open pull requests of a repository.', { repository: { type: 'string' } }),
  tool('translate_text', 'Translate text into another language.', {
    text: { type: 'string' },
    target_language: { type: 'string' },
  }),
  tool('run_sql_query', 'Run a SQL query against the database.', { sql: { type: 'string' } }),
  tool('deploy_service', 'Deploy a service to the cloud.', { service: { type: 'string' } }),
  tool('convert_currency', 'Convert an amount between currencies using exchange rates.', {
    amount: { type: 'number' },
  }),
];

const ctx = (prompt: string | undefined, turn = 1): SelectionContext => ({
  turn,
  latestUserMessage: prompt,
  conversation: prompt === undefined ? [] : [{ role: 'user', content: prompt }],
});
const signal = () => new AbortController().signal;

describe('HybridSelector', () => {
  it('ranks by lexical and dense evidence together, advertising members of all in registry order', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const output = await selector.select(ctx('what is the weather forecast in Paris'), TOOLS, { signal: signal() });
    const selection = applySelection(output, TOOLS);
    expect(selection.dropped).toEqual([]);
    expect(selection.names).toContain('get_weather');
    expect(selection.names).toHaveLength(3);
    const positions = selection.names.map((name) => TOOLS.findIndex((t) => t.name === name));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const t of output.tools) expect(TOOLS).toContain(t);
    const reason = output.reasons?.get_weather;
    expect(reason?.matched).toEqual(expect.arrayContaining(['weather', 'forecast']));
    expect(reason?.parts?.lexical).toBeGreaterThan(0);
    expect(reason?.parts).toHaveProperty('dense');
  });

  it('expands the query with the keyword synonym table (query side) and stems words', async () => {
    const selector = new HybridSelector(countingEmbedder());
    // "look up" → search (phrase pair); "pages" and "page" share a stem.
    expect(selector.queryWords('look up some pages')).toEqual(expect.arrayContaining(['search', 'page']));
    expect(selector.queryWords('look upon it')).not.toContain('search');
  });

  it('reaches a tool through its parameter names and descriptions', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 1, denseWeight: 0 });
    const output = await selector.select(ctx('which target_language should I use'), TOOLS, { signal: signal() });
    expect(output.tools.map((t) => t.name)).toEqual(['translate_text']);
  });

  it('degrades to its lexical half, and says so, when the embedder fails', async () => {
    const embedder = countingEmbedder();
    embedder.behaviour = () => 'reject';
    const selector = new HybridSelector(embedder, { topK: 2 });
    const output = await selector.select(ctx('send an email to Ana'), TOOLS, { signal: signal() });
    expect(output.fellOpen).toBeUndefined();
    expect(output.tools.map((t) => t.name)).toContain('send_email');
    expect(output.tools.length).toBeLessThanOrEqual(2);
    expect(output.warnings?.join(' ')).toMatch(/lexical half only/);
  });

  it('degrades to lexical on a NaN query vector too', async () => {
    const embedder = countingEmbedder();
    embedder.behaviour = (texts) => (texts.length === 1 && texts[0]?.startsWith('deploy') ? 'nan' : 'ok');
    const selector = new HybridSelector(embedder, { topK: 2 });
    const output = await selector.select(ctx('deploy the billing service'), TOOLS, { signal: signal() });
    expect(output.tools.map((t) => t.name)).toContain('deploy_service');
    expect(output.warnings?.join(' ')).toMatch(/lexical/);
  });

  it('falls open to the full surface only when neither half can rank', async () => {
    const embedder = countingEmbedder();
    embedder.behaviour = () => 'throw';
    const selector = new HybridSelector(embedder, { coreTools: ['read_file'] });
    const output = await selector.select(ctx('zzqx vvbn'), TOOLS, { signal: signal() });
    expect(output.tools).toEqual(TOOLS);
    expect(output.fellOpen).toMatch(/no lexical match/);
    expect(output.reasons?.read_file?.core).toBe(true);
  });

  it('ranks on the dense half alone when the query shares no word with any tool', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 2 });
    const output = await selector.select(ctx('zzqx vvbn'), TOOLS, { signal: signal() });
    expect(output.fellOpen).toBeUndefined();
    expect(output.tools).toHaveLength(2);
  });

  it('unions core tools into every non-empty selection', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 1, coreTools: ['read_file'] });
    const output = await selector.select(ctx('convert 10 euros to dollars'), TOOLS, { signal: signal() });
    const names = output.tools.map((t) => t.name);
    expect(names).toContain('convert_currency');
    expect(names).toContain('read_file');
    expect(output.reasons?.read_file?.core).toBe(true);
  });

  it('is deterministic: the same context gives the same selection', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 4 });
    const prompts = ['list open pull requests', 'translate this to German', 'run a sql query on users'];
    for (const prompt of prompts) {
      const first = await selector.select(ctx(prompt), TOOLS, { signal: signal() });
      const second = await selector.select(ctx(prompt, 3), TOOLS, { signal: signal() });
      expect(second.tools.map((t) => t.name)).toEqual(first.tools.map((t) => t.name));
    }
  });

  it('adaptive k keeps between floor and ceiling, fewer for a clear query', async () => {
    const selector = new HybridSelector(countingEmbedder(), { adaptive: { floor: 1, ceiling: 6, relative: 0.8 } });
    expect(selector.name).toBe('hybrid-adaptive');
    const clear = (await selector.select(ctx('weather forecast city'), TOOLS, { signal: signal() })).tools;
    expect(clear.length).toBeGreaterThanOrEqual(1);
    expect(clear.length).toBeLessThanOrEqual(6);
    expect(clear.map((t) => t.name)).toContain('get_weather');
    const vague = (await selector.select(ctx('help me with something'), TOOLS, { signal: signal() })).tools;
    expect(vague.length).toBeGreaterThanOrEqual(clear.length);
  });

  it('shares the corpus cache with an embedding selector: no re-embedding of the corpus', async () => {
    const embedder = countingEmbedder();
    const cache = memoryVectorCache();
    const dense = new EmbeddingSelector(embedder, { cache });
    await dense.select(ctx('weather'), TOOLS, { signal: signal() });
    const corpusTexts = embedder.texts.length - 1;
    expect(corpusTexts).toBe(TOOLS.length);
    const hybrid = new HybridSelector(embedder, { cache });
    await hybrid.select(ctx('weather'), TOOLS, { signal: signal() });
    // One more text: the query. The corpus came from the shared cache.
    expect(embedder.texts.length).toBe(corpusTexts + 2);
  });

  it('rejects with the abort reason rather than falling open', async () => {
    const embedder = countingEmbedder();
    embedder.hold = new Promise(() => undefined);
    const controller = new AbortController();
    const pending = new HybridSelector(embedder).select(ctx('weather'), TOOLS, { signal: controller.signal });
    controller.abort(new Error('cancelled by test'));
    await expect(pending).rejects.toThrow('cancelled by test');
  });

  it('validates its options', () => {
    expect(() => new HybridSelector(countingEmbedder(), { topK: 0 })).toThrow(/topK/);
    expect(() => new HybridSelector(countingEmbedder(), { denseWeight: 1.5 })).toThrow(/denseWeight/);
  });
});

describe('HybridSelector timeout', () => {
  const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

  async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
    const seen: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void seen.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await body();
      await tick(20);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    return seen;
  }

  it('has none by default and passes timeoutMs through to its embedding half', () => {
    expect(new HybridSelector(countingEmbedder()).timeoutMs).toBeUndefined();
    expect(new HybridSelector(countingEmbedder(), { timeoutMs: 30 }).dense.timeoutMs).toBe(30);
    const dense = new EmbeddingSelector(countingEmbedder(), { timeoutMs: 50 });
    expect(new HybridSelector(dense).timeoutMs).toBe(50);
    expect(new HybridSelector(dense, { timeoutMs: 30, cache: memoryVectorCache() }).timeoutMs).toBe(30);
    expect(() => new HybridSelector(countingEmbedder(), { timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('degrades to the lexical half with a warning; the corpus keeps building and the next turn blends again', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    const selector = new HybridSelector(embedder, { topK: 1, timeoutMs: 20 });

    const seen = await unhandledDuring(async () => {
      const output = await selector.select(ctx('what is the weather forecast in Paris'), TOOLS, { signal: signal() });
      expect(output.fellOpen).toBeUndefined();
      expect(output.tools.map((tool) => tool.name)).toEqual(['get_weather']);
      expect(output.reasons?.get_weather?.parts).not.toHaveProperty('dense');
      expect(output.warnings).toEqual([
        'embedding unavailable, ranking on the lexical half only: embedding timed out after 20 ms',
      ]);

      embedder.hold = undefined;
      release();
      await tick();
      expect(selector.dense.stats.corpusEmbeds).toBe(TOOLS.length);
      const callsBefore = embedder.calls;

      const next = await selector.select(ctx('what is the weather forecast in Paris', 2), TOOLS, { signal: signal() });
      expect(next.warnings).toBeUndefined();
      expect(next.tools.map((tool) => tool.name)).toEqual(['get_weather']);
      expect(next.reasons?.get_weather?.parts).toHaveProperty('dense');
      expect(selector.dense.stats.corpusEmbeds).toBe(TOOLS.length);
      expect(embedder.calls - callsBefore, 'only the query is embedded').toBe(1);
    });
    expect(seen).toEqual([]);
  });

  it('falls open only when the lexical half has no match either', async () => {
    const embedder = countingEmbedder();
    embedder.hold = new Promise(() => undefined);
    const output = await new HybridSelector(embedder, { timeoutMs: 20 }).select(ctx('xylophone quokka'), TOOLS, {
      signal: signal(),
    });
    expect(output.tools).toEqual(TOOLS);
    expect(output.fellOpen).toBe('no lexical match and the embedding could not rank: embedding timed out after 20 ms');
  });

  it('the abort signal still wins over the timeout', async () => {
    const embedder = countingEmbedder();
    embedder.hold = new Promise(() => undefined);
    const controller = new AbortController();
    const seen = await unhandledDuring(async () => {
      const pending = new HybridSelector(embedder, { timeoutMs: 5_000 }).select(ctx('weather'), TOOLS, {
        signal: controller.signal,
      });
      await tick(1);
      controller.abort(new Error('cancelled by test'));
      await expect(pending).rejects.toThrow('cancelled by test');
    });
    expect(seen).toEqual([]);
  });
});

describe('HybridSelector multi-intent prompts', () => {
  const TWO = 'search the web for pages about the sql query planner and its sql query plans; translate it into German';
  const pick = async (selector: HybridSelector, prompt: string, tools: readonly ToolSchema[] = TOOLS) =>
    (await selector.select(ctx(prompt), tools, { signal: signal() })).tools.map((t) => t.name);

  it('a one-clause prompt ranks exactly as with multi-intent off, but for its parameters', async () => {
    // The parameter lift applies to a one-clause prompt's own ranking too; without it nothing of
    // multi-intent touches it.
    const on = new HybridSelector(countingEmbedder(), { topK: 3, multiIntent: { parameters: 0 } });
    const off = new HybridSelector(countingEmbedder(), { topK: 3, multiIntent: false });
    for (const prompt of [
      'what is the weather forecast in Paris',
      'run a sql query against the orders database',
      'deploy the billing service',
    ]) {
      const a = await on.select(ctx(prompt), TOOLS, { signal: signal() });
      const b = await off.select(ctx(prompt), TOOLS, { signal: signal() });
      expect(a).toEqual(b);
    }
  });

  it("an enumerated prompt keeps a slot for each item's best tool, and only then", async () => {
    const LIST =
      'First, search the web for pages about the sql query planner and its sql query plans. I need many. Second, send an email to Kim';
    const embedder = countingEmbedder();
    const cache = memoryVectorCache();
    const share = new HybridSelector(embedder, { topK: 2, cache });
    const noShare = new HybridSelector(embedder, { topK: 2, cache, multiIntent: { share: false, clauseSlots: false } });
    expect(await pick(noShare, LIST)).toEqual(['search_web', 'run_sql_query']);
    expect(await pick(share, LIST)).toEqual(['send_email', 'search_web']);
    // The items are the clauses, each kept whole across its sentences.
    expect(embedder.texts.slice(-3)).toEqual([
      LIST,
      'search the web for pages about the sql query planner and its sql query plans. I need many',
      'send an email to Kim',
    ]);
    // k stays k, and a prompt that is not an enumeration ranks as without sharing.
    const plain = 'search the web for pages about the sql query planner and send an email';
    expect(await share.select(ctx(plain), TOOLS, { signal: signal() })).toEqual(
      await noShare.select(ctx(plain), TOOLS, { signal: signal() }),
    );
  });

  it("each clause's best tool is advertised beyond k when the ranking left it out", async () => {
    const cache = memoryVectorCache();
    // No enumeration share: the clauses add nothing to the ranking itself, only their slots.
    const slots = new HybridSelector(countingEmbedder(), {
      topK: 2,
      nameWeight: 0,
      cache,
      multiIntent: { share: false },
    });
    const none = new HybridSelector(countingEmbedder(), {
      topK: 2,
      nameWeight: 0,
      cache,
      multiIntent: { share: false, clauseSlots: false },
    });
    expect(await pick(none, TWO)).toEqual(['search_web', 'run_sql_query']);
    const output = await slots.select(ctx(TWO), TOOLS, { signal: signal() });
    expect(output.tools.map((t) => t.name)).toEqual(['search_web', 'translate_text', 'run_sql_query']);
    expect(output.reasons?.translate_text?.intent).toBe(true);
    // From the links budget: none beyond k without one.
    const noBudget = new HybridSelector(countingEmbedder(), {
      topK: 2,
      nameWeight: 0,
      cache,
      multiIntent: { share: false },
      links: { budget: 0 },
    });
    expect(await pick(noBudget, TWO)).toEqual(['search_web', 'run_sql_query']);
  });

  it('a parameter the prompt names lifts the tool that takes it: "allows smoking"', async () => {
    // Only search_hotels takes smoking_allowed; every tool takes a location, which tells none
    // apart. The counting embedder's scores jump by far more than a real model's, so the lift
    // is weighted 2 here, not the default 0.1 (docs/tuning-whole-task.md).
    const HOTELS: ToolSchema[] = [
      tool('book_hotel', 'Book a hotel room.', { location: { type: 'string' }, check_in: { type: 'string' } }),
      tool('reserve_hotel', 'Reserve a hotel room.', { location: { type: 'string' }, guests: { type: 'string' } }),
      tool('search_hotels', 'Find hotels by city.', {
        location: { type: 'string' },
        smoking_allowed: { type: 'boolean' },
      }),
      tool('hotel_reviews', 'Reviews of a hotel room.', { location: { type: 'string' } }),
    ];
    const base = { topK: 1, cache: memoryVectorCache(), links: false as const };
    const plain = new HybridSelector(countingEmbedder(), { ...base, multiIntent: { parameters: 0 } });
    const lifted = new HybridSelector(countingEmbedder(), { ...base, multiIntent: { parameters: 2 } });
    const prompt = 'I need a hotel room in Paris that allows smoking';
    expect(await pick(plain, prompt, HOTELS)).toEqual(['hotel_reviews']);
    expect(await pick(lifted, prompt, HOTELS)).toEqual(['search_hotels']);
    // Naming only what every tool takes lifts nothing.
    expect(await pick(lifted, 'I need a hotel room in Paris, any location', HOTELS)).toEqual(
      await pick(plain, 'I need a hotel room in Paris, any location', HOTELS),
    );
  });

  it('shorthand is spelled out: "Ack" reaches acknowledge_alert, "DM" a direct message tool', async () => {
    const OPS: ToolSchema[] = [
      tool('list_alerts', 'List open alerts.', { status: { type: 'string' } }),
      tool('acknowledge_alert', 'Acknowledge an alert so it stops paging.', { alert_id: { type: 'string' } }),
      tool('silence_alert', 'Silence an alert for a while.', { alert_id: { type: 'string' } }),
      tool('send_direct_message', 'Send a direct message to one person.', { user: { type: 'string' } }),
      tool('post_message', 'Post a message in a channel.', { channel: { type: 'string' } }),
    ];
    const base = { topK: 1, cache: memoryVectorCache(), links: false as const };
    const spelled = new HybridSelector(countingEmbedder(), base);
    const literal = new HybridSelector(countingEmbedder(), { ...base, multiIntent: { shorthand: false } });
    expect(await pick(spelled, 'ack ALR-7710 now', OPS)).toEqual(['acknowledge_alert']);
    expect(await pick(literal, 'ack ALR-7710 now', OPS)).not.toEqual(['acknowledge_alert']);
    expect(await pick(spelled, 'DM priya that the build is green', OPS)).toEqual(['send_direct_message']);
  });
});

describe('HybridSelector name coverage', () => {
  const NAMESAKES: ToolSchema[] = [
    tool('calculate_present_value', 'Present worth of a cash flow.'),
    tool('finance_value_report', 'The present value of payments.'),
    ...TOOLS,
  ];
  const top = async (selector: HybridSelector, prompt: string) =>
    (await selector.select(ctx(prompt), NAMESAKES, { signal: signal() })).tools.map((t) => t.name);

  it('a prompt that names a tool outright ranks it above a near-namesake', async () => {
    const embedder = countingEmbedder();
    const cache = memoryVectorCache();
    const prompt = 'calculate the present value of these payments';
    // Multi-intent off: the verb "calculate" would lift the named tool by its action as well.
    const multiIntent = false;
    expect(await top(new HybridSelector(embedder, { cache, topK: 1, nameWeight: 0, multiIntent }), prompt)).toEqual([
      'finance_value_report',
    ]);
    expect(await top(new HybridSelector(embedder, { cache, topK: 1, multiIntent }), prompt)).toEqual([
      'calculate_present_value',
    ]);
  });

  it('rejects a nameWeight outside 0..1', () => {
    expect(() => new HybridSelector(countingEmbedder(), { nameWeight: -0.1 })).toThrow(RangeError);
  });
});

describe('HybridSelector odd prompts', () => {
  it('a huge multi-sentence prompt ranks (clause splitting is bounded), an empty one falls open', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const huge = 'What is the weather in Paris. Then send an email to Kim. '.repeat(20_000);
    const output = await selector.select(ctx(huge), TOOLS, { signal: signal() });
    expect(output.fellOpen).toBeUndefined();
    expect(output.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_weather', 'send_email']));
    const empty = await selector.select(ctx('   '), TOOLS, { signal: signal() });
    expect(empty.fellOpen).toMatch(/no lexical match/);
  });
});
