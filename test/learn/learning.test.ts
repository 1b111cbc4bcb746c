import { describe, expect, it, vi } from 'vitest';
import { memoryVectorCache, type VectorCache } from '../../src/embed/vector-cache.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: {} },
});

const TOOLS: ToolSchema[] = [
  tool('get_weather', 'Current weather conditions and forecast for a city.'),
  tool('send_email', 'Send an email message to a recipient.'),
  tool('read_file', 'Return the contents of a file.'),
  tool('search_web', 'Search the web for pages matching a query.'),
  tool('create_calendar_event', 'Create an event in the calendar.'),
  tool('list_pull_requests', 'List open pull requests of a repository.'),
  tool('translate_text', 'Translate text into another language.'),
  tool('run_sql_query', 'Run a SQL query against the database.'),
];

const ctx = (prompt: string): SelectionContext => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [{ role: 'user', content: prompt }],
});
const signal = () => new AbortController().signal;
// Nothing in this prompt names email; only a learned example can bring send_email up.
const PROMPT = 'ping the oncall crew about the outage';
const EXAMPLE = { query: 'ping the oncall crew about the outage today', tools: ['send_email'] };
// The test embedder's hashed words leave noise that min–max scaling stretches to 1, so the
// votes here weigh more than the defaults (fitted on real embeddings) do. One example is enough
// to vote here (`agreement: 1`): these tests are about the votes' plumbing; the default needs two
// agreeing neighbours (test/learn/vote-agreement.test.ts).
const LEARNED = { weight: 2, agreement: 1 };

async function top(selector: HybridSelector | EmbeddingSelector, prompt: string, all = TOOLS): Promise<string[]> {
  return (await selector.select(ctx(prompt), all, { signal: signal() })).tools.map((t) => t.name);
}

describe.each([
  {
    kind: 'hybrid',
    make: (cache: VectorCache) => new HybridSelector(countingEmbedder(), { topK: 1, cache, learned: LEARNED }),
  },
  {
    kind: 'embedding',
    make: (cache: VectorCache) => new EmbeddingSelector(countingEmbedder(), { topK: 1, cache, learned: LEARNED }),
  },
])('learn ($kind)', ({ make }) => {
  it('a learned prompt votes its tools up for a near prompt, and says so in the reasons', async () => {
    const selector = make(memoryVectorCache());
    expect(await top(selector, PROMPT)).not.toContain('send_email');
    const summary = await selector.learn([EXAMPLE], { tools: TOOLS });
    expect(summary).toMatchObject({ learned: 1, updated: 0, duplicates: 0, unknownTools: 0, ignored: 0, total: 1 });
    const output = await selector.select(ctx(PROMPT), TOOLS, { signal: signal() });
    expect(output.tools.map((t) => t.name)).toEqual(['send_email']);
    expect(output.reasons?.send_email?.parts?.learned).toBeGreaterThan(0);
    // An unrelated prompt is not dragged by the example.
    expect(await top(selector, 'translate this text into French')).toEqual(['translate_text']);
  });

  it('survives a reload through the same cache, and clearLearned forgets it there too', async () => {
    const cache = memoryVectorCache();
    await make(cache).learn([EXAMPLE], { tools: TOOLS });
    const reloaded = make(cache);
    expect(await top(reloaded, PROMPT)).toEqual(['send_email']);
    expect(reloaded.learnedCount).toBe(1);
    await reloaded.clearLearned();
    expect(reloaded.learnedCount).toBe(0);
    expect(await top(reloaded, PROMPT)).not.toContain('send_email');
    const again = make(cache);
    expect(await top(again, PROMPT)).not.toContain('send_email');
    expect(again.learnedCount).toBe(0);
    // Clearing before anything was ranked still clears what a previous session stored.
    await make(cache).learn([EXAMPLE], { tools: TOOLS });
    await make(cache).clearLearned();
    const fresh = make(cache);
    expect(await top(fresh, PROMPT)).not.toContain('send_email');
  });

  it("when tools change, a removed tool's examples go and the rest stay (also after a reload)", async () => {
    const cache = memoryVectorCache();
    const selector = make(cache);
    await selector.learn(
      [
        EXAMPLE,
        { query: 'what does the sky look like over Bergen', tools: ['get_weather'] },
        { query: 'ping and look', tools: ['send_email', 'read_file'] },
      ],
      { tools: TOOLS },
    );
    expect(selector.learnedCount).toBe(3);
    const without = TOOLS.filter((t) => t.name !== 'send_email');
    await top(selector, 'anything at all', without);
    expect(selector.learnedCount).toBe(2);
    const reloaded = make(cache);
    expect(await top(reloaded, 'what does the sky look like over Oslo', without)).toEqual(['get_weather']);
    expect(reloaded.learnedCount).toBe(2);
    // Adding the tool back does not resurrect the dropped example.
    await top(reloaded, 'x y z', TOOLS);
    expect(reloaded.learnedCount).toBe(2);
  });

  it('bad input: unknown tools, blank and non-string prompts, duplicates and a huge prompt are counted, never thrown', async () => {
    const selector = make(memoryVectorCache());
    const huge = `ping the oncall crew ${'about the outage '.repeat(20_000)}`;
    const summary = await selector.learn(
      [
        EXAMPLE,
        { query: EXAMPLE.query.toUpperCase(), tools: ['send_email'] }, // same prompt, case folded
        { query: 'ping the oncall crew about the outage today', tools: ['send_email', 'no_such_tool', 'other_ghost'] },
        { query: '   ', tools: ['send_email'] },
        { query: 'only ghosts', tools: ['ghost'] },
        { query: 42, tools: ['send_email'] } as never,
        null as never,
        { query: 'tools is not a list', tools: 'send_email' } as never,
        { query: huge, tools: ['read_file'] },
      ],
      { tools: TOOLS },
    );
    expect(summary).toMatchObject({ learned: 2, updated: 0, duplicates: 2, unknownTools: 3, ignored: 5, total: 2 });
    const again = await selector.learn([EXAMPLE, { query: EXAMPLE.query, tools: ['read_file'] }], { tools: TOOLS });
    expect(again).toMatchObject({ learned: 0, updated: 1, duplicates: 1, total: 2 });
    await expect(selector.learn('nope' as never, { tools: TOOLS })).rejects.toThrow(TypeError);
    const empty = await selector.learn([], { tools: TOOLS });
    expect(empty).toMatchObject({ learned: 0, total: 2 });
  });

  it('needs the tool list the first time, and learns against the last ranked list after that', async () => {
    const selector = make(memoryVectorCache());
    await expect(selector.learn([EXAMPLE])).rejects.toThrow(/registry's tools/);
    await top(selector, 'warm up');
    expect((await selector.learn([EXAMPLE])).learned).toBe(1);
  });

  it('a corrupt stored entry is discarded with a warning and rebuilt; selection never crashes', async () => {
    const cache = memoryVectorCache();
    const entries = new Map<string, Uint8Array>();
    const spy: VectorCache = {
      get: (key) => cache.get(key),
      async set(key, value) {
        entries.set(key, value);
        await cache.set(key, value);
      },
      delete: (key) => cache.delete!(key),
    };
    await make(spy).learn([EXAMPLE], { tools: TOOLS });
    const key = [...entries.keys()].find((k) => k.startsWith('learned:v1:') && !k.endsWith(':latest')) as string;
    const bytes = (await cache.get(key)) as Uint8Array;
    const flipped = bytes.slice();
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] as number) ^ 0xff;
    await cache.set(key, flipped);

    const reloaded = make(spy);
    const output = await reloaded.select(ctx(PROMPT), TOOLS, { signal: signal() });
    expect(output.fellOpen).toBeUndefined();
    expect(output.warnings?.join('\n')).toMatch(/learned examples entry discarded \(payload checksum mismatch\)/);
    expect(reloaded.learnedCount).toBe(0);
    expect((await reloaded.learn([EXAMPLE])).learned).toBe(1);
    expect(await top(make(spy), PROMPT)).toEqual(['send_email']);
  });

  it('an embedder failure rejects learn and keeps nothing from that call', async () => {
    const embedder = countingEmbedder();
    const selector = new HybridSelector(embedder, { topK: 1 });
    await top(selector, 'warm');
    embedder.behaviour = () => 'throw';
    await expect(selector.learn([EXAMPLE])).rejects.toThrow();
    embedder.behaviour = () => 'nan';
    await expect(selector.learn([EXAMPLE])).rejects.toThrow(/cannot rank/);
    expect(selector.learnedCount).toBe(0);
  });
});

describe('learn during a selection', () => {
  it('a learn that lands while a selection waits on the embedder leaves that selection whole, and applies from the next', async () => {
    const embedder = countingEmbedder();
    const selector = new HybridSelector(embedder, { topK: 1, learned: LEARNED });
    await top(selector, 'warm');
    let release!: () => void;
    embedder.hold = new Promise<void>((resolve) => (release = resolve));
    const selecting = selector.select(ctx(PROMPT), TOOLS, { signal: signal() });
    const learning = selector.learn([EXAMPLE]);
    release();
    embedder.hold = undefined;
    const [output, summary] = await Promise.all([selecting, learning]);
    expect(output.tools).toHaveLength(1);
    expect(summary.learned).toBe(1);
    expect(await top(selector, PROMPT)).toEqual(['send_email']);
  });
});

describe('background refit', () => {
  const examples = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      query: `routine number ${from + i} for the crew`,
      tools: [TOOLS[(from + i) % TOOLS.length]?.name as string],
    }));

  /**
   * Runs `work` under a clock that jumps a second per reading (so every slice is used up at its
   * first check) beside a zero-delay timer chain; returns its result and how often the chain ran
   * before it resolved (0 when `work` never gave the thread back).
   */
  async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (clock += 1000));
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks++;
      if (running) setTimeout(tick, 0);
    };
    try {
      const pending = work();
      setTimeout(tick, 0);
      const result = await pending;
      return { result, ticks };
    } finally {
      running = false;
      now.mockRestore();
    }
  }

  it("a fit runs in time slices: other tasks (a page's input, its painting) run while learn is fitting", async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 1, cache: memoryVectorCache() });
    await selector.learn(examples(0, 10), { tools: TOOLS });
    const { result: summary, ticks } = await ticksDuring(() => selector.learn(examples(10, 5), { tools: TOOLS }));
    expect(summary.projection?.examples).toBe(15);
    // Nothing else in learn waits on a timer: the ticks ran inside the fit's pauses.
    expect(ticks).toBeGreaterThan(3);
  });

  it('a big learn gives the thread back before any fit: while merging its examples and between embedding batches', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 1, cache: memoryVectorCache() });
    await selector.learn(examples(0, 10), { tools: TOOLS });
    // The refit waits for a later task, so any tick before this resolves came from learn's own pauses.
    const { result: summary, ticks } = await ticksDuring(() =>
      selector.learn(examples(10, 200), { tools: TOOLS, fit: 'background' }),
    );
    expect(summary.learned).toBe(200);
    expect(ticks).toBeGreaterThan(3);
  });

  it('a refit whose timer the runtime dropped is scheduled again by a later ranking, a second on', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 1, cache: memoryVectorCache() });
    await selector.learn(examples(0, 10), { tools: TOOLS });
    expect(selector.learnedProjection?.examples).toBe(10);
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      await selector.learn(examples(10, 5), { tools: TOOLS, fit: 'background' });
      // What a Worker does to a timer when its request ends first: it never runs.
      vi.clearAllTimers();
      await top(selector, PROMPT);
      await vi.runAllTimersAsync();
      expect(selector.learnedProjection?.examples).toBe(10);
      vi.setSystemTime(Date.now() + 1500);
      await top(selector, PROMPT);
      await vi.runAllTimersAsync();
      expect(selector.learnedProjection?.examples).toBe(15);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a HybridSelector built from an EmbeddingSelector (as the named table builds every hybrid)', () => {
  /** A memory cache that lists the keys written to it. */
  function listingCache(): VectorCache & { keys: string[] } {
    const inner = memoryVectorCache({ maxEntries: 64 });
    const keys: string[] = [];
    return {
      keys,
      get: (key) => inner.get(key),
      set: (key, value) => {
        keys.push(key);
        return inner.set(key, value);
      },
    };
  }

  it('honours learned and learnedCache: the examples vote with its weight and persist in its learnedCache only', async () => {
    const corpus = listingCache();
    const learnedCache = listingCache();
    const base = new EmbeddingSelector(countingEmbedder(), { cache: corpus });
    const selector = new HybridSelector(base, { topK: 1, learned: LEARNED, learnedCache });
    await selector.learn([EXAMPLE], { tools: TOOLS });
    expect(await top(selector, PROMPT)).toEqual(['send_email']);
    expect(learnedCache.keys.some((key) => key.startsWith('learned:v1:'))).toBe(true);
    expect(corpus.keys.filter((key) => key.startsWith('learned:'))).toEqual([]);
    // The embedding selector passed in keeps its own (default) learning settings and store.
    expect(base.learnedCount).toBe(0);
    // Derived copies keep the learning settings and the examples.
    expect(await top(selector.withTopK(1), PROMPT)).toEqual(['send_email']);
  });

  it('learned options reach the vote: weight 0 leaves the ranking as it was', async () => {
    const base = new EmbeddingSelector(countingEmbedder());
    const silent = new HybridSelector(base, { topK: 1, learned: { weight: 0, projection: false } });
    await silent.learn([EXAMPLE], { tools: TOOLS });
    expect(silent.learnedCount).toBe(1);
    expect(await top(silent, PROMPT)).not.toContain('send_email');
  });
});
