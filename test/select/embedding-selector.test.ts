import { describe, expect, it } from 'vitest';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { type Behaviour, countingEmbedder, ctx, mapCache, registry } from '../embed/counting-embedder.js';

const names = (tools: readonly ToolSchema[]) => tools.map((tool) => tool.name);
const noSignal = { signal: new AbortController().signal };

describe('EmbeddingSelector ranking', () => {
  it('advertises the top k by cosine, in registry order, with scores', async () => {
    const selector = new EmbeddingSelector(countingEmbedder()).withTopK(2);
    const all = registry();
    const output = await selector.select(ctx('Translate this text into another language'), all, noSignal);
    expect(output.fellOpen).toBeUndefined();
    expect(names(output.tools)).toContain('translate_text');
    expect(output.tools).toHaveLength(2);
    // registry order, not rank order
    const positions = output.tools.map((tool) => all.indexOf(tool));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    for (const tool of output.tools) expect(typeof output.reasons?.[tool.name]?.score).toBe('number');
    const scores = output.tools.map((tool) => output.reasons?.[tool.name]?.score as number);
    expect(output.reasons?.translate_text?.score).toBe(Math.max(...scores));
    expect(output.reasons?.translate_text?.score).toBeGreaterThan(0.3);
    expect(output.reasons?.translate_text?.score).toBeLessThanOrEqual(1 + 1e-6);
  });

  it('finds the obvious tool for several prompts', async () => {
    const selector = new EmbeddingSelector(countingEmbedder(), { topK: 1 });
    const cases: Array<[string, string]> = [
      ['What is the weather forecast for Paris?', 'get_weather'],
      ['Send an email to Bob about the meeting', 'send_email'],
      ['Convert 100 dollars to euro currency', 'convert_currency'],
      ['List the files in my home directory', 'list_directory'],
      ['Run a shell command to check disk usage', 'run_shell_command'],
    ];
    for (const [prompt, expected] of cases) {
      expect(names((await selector.select(ctx(prompt), registry(), noSignal)).tools)).toEqual([expected]);
    }
  });

  it('applySelection keeps what select() returns', async () => {
    const selector = new EmbeddingSelector(countingEmbedder(), { topK: 3 });
    const all = registry();
    const detailed = await selector.select(ctx('read a file'), all, noSignal);
    const selection = applySelection(detailed, all);
    expect(selection.names).toEqual(names(detailed.tools));
    expect(selection.dropped).toEqual([]);
    expect(selection.warnings).toEqual([]);
    expect(selection.reasons.read_file?.score).toBeTypeOf('number');
  });

  it('defaults to k = 8 and clamps k to the registry', async () => {
    const all = registry();
    const selector = new EmbeddingSelector(countingEmbedder());
    expect(selector.topK).toBe(8);
    expect((await selector.select(ctx('weather'), all, noSignal)).tools.length).toBe(8);
    const wide = await selector.withTopK(50).select(ctx('weather'), all, noSignal);
    expect(wide.tools).toEqual(all);
    expect(wide.fellOpen).toBeUndefined();
  });

  it('k = 0 is refused at configuration time, as on every ranked selector', () => {
    expect(() => new EmbeddingSelector(countingEmbedder(), { topK: 0, coreTools: ['read_file'] })).toThrow(
      /topK must be a positive integer/,
    );
  });

  it('an empty registry selects nothing', async () => {
    const output = await new EmbeddingSelector(countingEmbedder()).select(ctx('weather'), [], noSignal);
    expect(output).toEqual({ tools: [] });
  });

  it('rejects a bad k at configuration time', () => {
    expect(() => new EmbeddingSelector(countingEmbedder(), { topK: -1 })).toThrow(RangeError);
    expect(() => new EmbeddingSelector(countingEmbedder()).withTopK(1.5)).toThrow(RangeError);
  });

  it('unions core tools into every non-empty selection, flagged as core', async () => {
    const selector = new EmbeddingSelector(countingEmbedder(), { topK: 1 }).withCoreTools([
      'read_file',
      'missing_tool',
    ]);
    const output = await selector.select(ctx('What is the weather in Oslo?'), registry(), noSignal);
    expect(names(output.tools)).toEqual(['get_weather', 'read_file']);
    expect(output.reasons?.read_file).toMatchObject({ core: true });
    expect(output.reasons?.read_file?.score).toBeTypeOf('number');
    expect(output.reasons?.get_weather?.core).toBeUndefined();
    expect(selector.coreTools).toEqual(['read_file', 'missing_tool']);
  });

  it('does not double-count a core tool that also ranked', async () => {
    const selector = new EmbeddingSelector(countingEmbedder(), { topK: 1, coreTools: ['get_weather'] });
    const output = await selector.select(ctx('weather in Oslo'), registry(), noSignal);
    expect(names(output.tools)).toEqual(['get_weather']);
    expect(output.reasons?.get_weather?.core).toBeUndefined();
  });

  it('adaptive k narrows to where the scores fall off', async () => {
    const all = registry();
    const fixed = new EmbeddingSelector(countingEmbedder(), { topK: 6 });
    const adaptive = fixed.withAdaptive({ floor: 1, relative: 0.6 });
    const prompt = 'weather forecast temperature rain wind city';
    expect((await fixed.select(ctx(prompt), all, noSignal)).tools.length).toBe(6);
    expect(names((await adaptive.select(ctx(prompt), all, noSignal)).tools)).toEqual(['get_weather']);
    // floor defaults to min(3, k): recall bias
    const defaults = new EmbeddingSelector(countingEmbedder(), { topK: 6, adaptive: true });
    const picked = (await defaults.select(ctx(prompt), all, noSignal)).tools;
    expect(picked.length).toBeGreaterThanOrEqual(3);
    expect(picked.length).toBeLessThanOrEqual(6);
  });
});

describe('EmbeddingSelector caching', () => {
  it('embeds the corpus once; every turn embeds only the query', async () => {
    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder);
    const all = registry();
    for (let turn = 1; turn <= 4; turn++) await selector.select(ctx('send an email', turn), all, noSignal);
    expect(selector.stats.corpusEmbeds).toBe(all.length);
    expect(embedder.texts.filter((text) => text === 'send an email')).toHaveLength(4);
    expect(embedder.texts).toHaveLength(all.length + 4);
  });

  it('a second selector over the same registry (sharing the cache) does zero corpus embeds', async () => {
    const cache = memoryVectorCache();
    const all = registry();
    const first = new EmbeddingSelector(countingEmbedder(), { cache });
    await first.select(ctx('weather'), all, noSignal);

    const embedder = countingEmbedder();
    const second = new EmbeddingSelector(embedder).withCache(cache);
    const output = await second.select(ctx('weather'), all, noSignal);
    expect(second.stats.corpusEmbeds).toBe(0);
    expect(embedder.texts).toEqual(['weather']);
    expect(names(output.tools)).toContain('get_weather');
  });

  it('a selector in another process (same storage, fresh memory) reads the persisted corpus', async () => {
    const storage = new Map<string, Uint8Array>();
    const all = registry();
    await new EmbeddingSelector(countingEmbedder(), { cache: mapCache(storage) }).select(ctx('weather'), all, noSignal);

    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder, { cache: mapCache(storage) });
    await selector.select(ctx('weather'), all, noSignal);
    expect(selector.stats).toMatchObject({ corpusEmbeds: 0, cacheHits: 1 });
    expect(embedder.texts).toEqual(['weather']);
  });

  it('a one-tool description change re-embeds exactly one text', async () => {
    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder, { topK: 1 });
    const all = registry();
    await selector.select(ctx('weather'), all, noSignal);
    const edited = all.map((tool) =>
      tool.name === 'send_email' ? { ...tool, description: 'Deliver a weather bulletin by mail.' } : tool,
    );
    await selector.select(ctx('weather'), edited, noSignal);
    expect(selector.stats.corpusEmbeds).toBe(all.length + 1);
  });

  it('a renamed or reordered registry is a new generation', async () => {
    const embedder = countingEmbedder();
    const cache = mapCache();
    const selector = new EmbeddingSelector(embedder, { topK: 1, cache });
    const all = registry();
    await selector.select(ctx('weather'), all, noSignal);

    const reordered = [...all].reverse();
    const output = await selector.select(ctx('weather'), reordered, noSignal);
    expect(names(output.tools)).toEqual(['get_weather']);
    expect(selector.stats).toMatchObject({ corpusEmbeds: all.length, cacheMisses: 2 });
    expect(cache.map.size).toBe(2);

    const renamed = all.map((tool) => (tool.name === 'get_weather' ? { ...tool, name: 'weather_lookup' } : tool));
    const again = await selector.select(ctx('weather'), renamed, noSignal);
    expect(names(again.tools)).toEqual(['weather_lookup']);
    expect(selector.stats).toMatchObject({ corpusEmbeds: all.length + 1, cacheMisses: 3 });
  });

  it('a warm turn does no cache I/O, even with a fresh array of the same schemas', async () => {
    const cache = mapCache();
    const selector = new EmbeddingSelector(countingEmbedder(), { cache });
    const all = registry();
    await selector.select(ctx('weather'), all, noSignal);
    const reads = cache.gets;
    await selector.select(ctx('weather'), all, noSignal);
    await selector.select(ctx('weather'), [...all], noSignal);
    expect(cache.gets).toBe(reads);
  });

  it('fluent copies share the warm corpus and counters', async () => {
    const embedder = countingEmbedder();
    const base = new EmbeddingSelector(embedder);
    await base.select(ctx('weather'), registry(), noSignal);
    const narrowed = base.withTopK(2).withCoreTools(['read_file']);
    await narrowed.select(ctx('weather'), registry(), noSignal);
    expect(narrowed.stats.corpusEmbeds).toBe(registry().length);
    expect(narrowed.cache).toBe(base.cache);
  });

  it('a corrupt persisted entry is rebuilt and ranks exactly like a clean one', async () => {
    const storage = new Map<string, Uint8Array>();
    const all = registry();
    const prompt = 'Schedule a calendar meeting with attendees';
    const clean = await new EmbeddingSelector(countingEmbedder(), { cache: mapCache(storage) }).select(
      ctx(prompt),
      all,
      noSignal,
    );
    for (const [key, bytes] of storage) storage.set(key, bytes.slice(0, bytes.length >> 1));

    const selector = new EmbeddingSelector(countingEmbedder(), { cache: mapCache(storage) });
    const output = await selector.select(ctx(prompt), all, noSignal);
    expect(selector.stats.rebuiltCorrupt).toBe(1);
    expect(output.fellOpen).toBeUndefined();
    expect(output.tools).toEqual(clean.tools);
    expect(output.reasons).toEqual(clean.reasons);
    expect(output.warnings?.join('\n')).toMatch(/discarded/);
    expect(applySelection(output, all).warnings.join('\n')).toMatch(/discarded/);
  });

  it('two concurrent selections for the same generation embed the corpus once', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    const selector = new EmbeddingSelector(embedder, { topK: 1 });
    const all = registry();
    const a = selector.select(ctx('weather'), all, noSignal);
    const b = selector.select(ctx('send an email'), [...all], noSignal);
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    expect(names((await a).tools)).toEqual(['get_weather']);
    expect(names((await b).tools)).toEqual(['send_email']);
    expect(selector.stats.corpusEmbeds).toBe(all.length);
    expect(embedder.texts.filter((text) => text === 'weather' || text === 'send an email')).toHaveLength(2);
  });

  it('reports corpus progress', async () => {
    const events: number[] = [];
    const selector = new EmbeddingSelector(countingEmbedder(), {
      batchSize: 5,
      onProgress: ({ phase, done, total }) => {
        expect(phase).toBe('corpus');
        expect(total).toBe(10);
        events.push(done);
      },
    });
    await selector.select(ctx('weather'), registry(), noSignal);
    await selector.select(ctx('weather'), registry(), noSignal);
    expect(events).toEqual([0, 5, 10]);
  });
});

describe('EmbeddingSelector fails open', () => {
  const failing: Behaviour[] = ['throw', 'reject', 'nan', 'zero', 'empty', 'wrong-count', 'wrong-dims'];

  for (const behaviour of failing) {
    it(`to the full surface when every embed call is "${behaviour}"`, async () => {
      const embedder = countingEmbedder();
      embedder.behaviour = () => behaviour;
      const all = registry();
      const selector = new EmbeddingSelector(embedder, { topK: 2, coreTools: ['read_file'] });
      const output = await selector.select(ctx('weather'), all, noSignal);
      expect(output.tools).toEqual(all);
      expect(output.fellOpen).toMatch(/corpus embedding failed/);
      expect(output.reasons?.read_file).toEqual({ core: true });
      expect(applySelection(output, all).warnings[0]).toMatch(/selector fell open/);
    });

    it(`to the full surface when only the query embed is "${behaviour}"`, async () => {
      const embedder = countingEmbedder();
      embedder.behaviour = (texts) => (texts.length === 1 && texts[0] === 'weather' ? behaviour : 'ok');
      const all = registry();
      const output = await new EmbeddingSelector(embedder, { topK: 2 }).select(ctx('weather'), all, noSignal);
      expect(output.tools).toEqual(all);
      expect(output.fellOpen).toMatch(
        /query embedding failed|query vector cannot rank|query vector has \d+ dimensions|returned 0 vectors for 1 text/,
      );
    });
  }

  it('names the reasons clearly', async () => {
    const run = async (behaviour: Behaviour) => {
      const embedder = countingEmbedder();
      embedder.behaviour = (texts) => (texts[0] === 'weather' ? behaviour : 'ok');
      return (await new EmbeddingSelector(embedder).select(ctx('weather'), registry(), noSignal)).fellOpen;
    };
    expect(await run('throw')).toBe('query embedding failed: embedder exploded');
    expect(await run('reject')).toBe('query embedding failed: embedding service unavailable');
    expect(await run('nan')).toBe('query vector cannot rank (zero or non-finite)');
    expect(await run('zero')).toBe('query vector cannot rank (zero or non-finite)');
    expect(await run('empty')).toBe('query vector has 0 dimensions, expected 256');
    expect(await run('wrong-dims')).toBe('query vector has 259 dimensions, expected 256');
  });

  it.each([undefined, '', '   \n'])('when there is no query (%j)', async (prompt) => {
    const embedder = countingEmbedder();
    const all = registry();
    const output = await new EmbeddingSelector(embedder, { coreTools: ['read_file'] }).select(
      ctx(prompt),
      all,
      noSignal,
    );
    expect(output.tools).toEqual(all);
    expect(output.fellOpen).toMatch(/no query/);
    expect(embedder.calls).toBe(0);
  });

  it('recovers on the next turn once the embedder works again', async () => {
    const embedder = countingEmbedder();
    embedder.behaviour = () => 'reject';
    const selector = new EmbeddingSelector(embedder, { topK: 1 });
    expect((await selector.select(ctx('weather'), registry(), noSignal)).fellOpen).toBeDefined();
    embedder.behaviour = () => 'ok';
    const output = await selector.select(ctx('weather'), registry(), noSignal);
    expect(output.fellOpen).toBeUndefined();
    expect(names(output.tools)).toEqual(['get_weather']);
  });
});

describe('EmbeddingSelector abort', () => {
  it('rejects with the reason of an already-aborted signal', async () => {
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    controller.abort(reason);
    const selector = new EmbeddingSelector(countingEmbedder());
    await expect(selector.select(ctx('weather'), registry(), { signal: controller.signal })).rejects.toBe(reason);
  });

  it('rejects with the abort reason mid-embed instead of falling open', async () => {
    const embedder = countingEmbedder();
    embedder.hold = new Promise(() => {});
    const controller = new AbortController();
    const selector = new EmbeddingSelector(embedder);
    const pending = selector.select(ctx('weather'), registry(), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 1));
    const reason = new DOMException('stop', 'AbortError');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);

    embedder.hold = undefined;
    const output = await selector.select(ctx('weather'), registry(), noSignal);
    expect(output.fellOpen).toBeUndefined();
  });

  it('rejects promptly even when the embedder ignores the signal', async () => {
    const embedder = countingEmbedder();
    const base = embedder.embed.bind(embedder);
    let slow = true;
    embedder.embed = (texts) => (slow ? new Promise(() => {}) : base(texts));
    const controller = new AbortController();
    const pending = new EmbeddingSelector(embedder).select(ctx('weather'), registry(), { signal: controller.signal });
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    slow = false;
  });
});

describe('EmbeddingSelector hot path', () => {
  it('a warm turn over 1,857 tools embeds only the query (its speed is in npm run bench)', async () => {
    const dimensions = 512;
    const embedder = countingEmbedder({ dimensions });
    const all: ToolSchema[] = Array.from({ length: 1857 }, (_, i) => ({
      name: `server${i % 37}_tool_${i}`,
      description: `Tool number ${i} handles ${['files', 'mail', 'weather', 'calendar', 'search', 'money'][i % 6]} tasks for project ${i % 101}.`,
      parameters: { type: 'object' },
    }));
    const queryVector = (await embedder.embed(['weather tasks for project 7']))[0] as Float32Array;
    const embedded: number[] = [];
    const fast = {
      ...embedder,
      embed: async (texts: readonly string[]) => {
        embedded.push(texts.length);
        return [queryVector];
      },
    };
    const selector = new EmbeddingSelector(embedder, { topK: 8 });
    await selector.select(ctx('weather tasks for project 7'), all, noSignal);
    const warm = new EmbeddingSelector(fast, { topK: 8 }).withCache(selector.cache);
    await warm.select(ctx('weather tasks for project 7'), all, noSignal);

    embedded.length = 0;
    for (let turn = 0; turn < 30; turn++) {
      const output = await warm.select(ctx('weather tasks for project 7', turn), all, noSignal);
      expect(output.tools.length).toBe(8);
    }
    expect(embedded).toEqual(Array(30).fill(1)); // one query text per turn, no corpus text
    expect(warm.stats.corpusEmbeds).toBe(0);
  });
});

describe('EmbeddingSelector timeout', () => {
  const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Rejections nobody handled while `body` runs (and shortly after). */
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

  it('has none by default, and withTimeout sets, clears and validates it', () => {
    const selector = new EmbeddingSelector(countingEmbedder());
    expect(selector.timeoutMs).toBeUndefined();
    expect(selector.withTimeout(250).timeoutMs).toBe(250);
    expect(selector.withTimeout(250).withTimeout(undefined).timeoutMs).toBeUndefined();
    expect(new EmbeddingSelector(countingEmbedder(), { timeoutMs: 40 }).withTopK(2).timeoutMs).toBe(40);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => selector.withTimeout(bad)).toThrow(RangeError);
      expect(() => new EmbeddingSelector(countingEmbedder(), { timeoutMs: bad })).toThrow(/timeoutMs/);
    }
  });

  it('falls open with the reason; the corpus keeps building and the next turn ranks without re-embedding it', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    const all = registry();
    const selector = new EmbeddingSelector(embedder, { topK: 1, coreTools: ['read_file'] }).withTimeout(20);

    const seen = await unhandledDuring(async () => {
      const started = performance.now();
      const output = await selector.select(ctx('weather'), all, noSignal);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(output.tools).toEqual(all);
      expect(output.fellOpen).toBe('embedding timed out after 20 ms');
      expect(output.reasons?.read_file).toEqual({ core: true });
      expect(applySelection(output, all).warnings.join('\n')).toMatch(/embedding timed out after 20 ms/);
      expect(selector.stats.corpusEmbeds).toBe(0);

      // The hold lifts: the abandoned corpus build finishes on its own, the abandoned query does not.
      embedder.hold = undefined;
      release();
      await tick();
      expect(selector.stats.corpusEmbeds).toBe(all.length);
      const callsBefore = embedder.calls;

      const next = await selector.select(ctx('weather', 2), all, noSignal);
      expect(next.fellOpen).toBeUndefined();
      expect(names(next.tools)).toEqual(['get_weather', 'read_file']);
      expect(selector.stats.corpusEmbeds).toBe(all.length);
      expect(embedder.calls - callsBefore, 'only the query is embedded').toBe(1);
      expect(embedder.texts.filter((text) => text === 'weather')).toHaveLength(1);
    });
    expect(seen).toEqual([]);
  });

  it('times out a slow query over a warm corpus too', async () => {
    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder, { topK: 1, timeoutMs: 20 });
    const all = registry();
    expect((await selector.select(ctx('weather'), all, noSignal)).fellOpen).toBeUndefined();
    embedder.hold = new Promise(() => undefined);
    const output = await selector.select(ctx('send an email', 2), all, noSignal);
    expect(output.fellOpen).toBe('embedding timed out after 20 ms');
    embedder.hold = undefined;
    expect(names((await selector.select(ctx('send an email', 3), all, noSignal)).tools)).toEqual(['send_email']);
    expect(selector.stats.corpusEmbeds).toBe(all.length);
  });

  it('a corpus build that fails after its turn timed out leaves no unhandled rejection, and the next turn rebuilds', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    embedder.behaviour = (texts) => (texts.length > 1 ? 'reject' : 'ok');
    const all = registry();
    const selector = new EmbeddingSelector(embedder, { topK: 1, timeoutMs: 20 });
    const seen = await unhandledDuring(async () => {
      expect((await selector.select(ctx('weather'), all, noSignal)).fellOpen).toBe('embedding timed out after 20 ms');
      embedder.hold = undefined;
      release();
      await tick();
    });
    expect(seen).toEqual([]);
    embedder.behaviour = () => 'ok';
    const output = await selector.select(ctx('weather', 2), all, noSignal);
    expect(output.fellOpen).toBeUndefined();
    expect(names(output.tools)).toEqual(['get_weather']);
  });

  it('waits without a timeout: a slow embedder is not a fall-open by default', async () => {
    const embedder = countingEmbedder();
    let release!: () => void;
    embedder.hold = new Promise((resolve) => (release = resolve));
    let done = false;
    const pending = new EmbeddingSelector(embedder, { topK: 1 })
      .select(ctx('weather'), registry(), noSignal)
      .finally(() => (done = true));
    await tick(40);
    expect(done).toBe(false);
    embedder.hold = undefined;
    release();
    const output = await pending;
    expect(output.fellOpen).toBeUndefined();
    expect(names(output.tools)).toEqual(['get_weather']);
  });

  it('the abort signal still wins: rejects with its reason, never a fall-open', async () => {
    const embedder = countingEmbedder();
    embedder.hold = new Promise(() => undefined);
    const selector = new EmbeddingSelector(embedder).withTimeout(5_000);
    const controller = new AbortController();
    const seen = await unhandledDuring(async () => {
      const started = performance.now();
      const pending = selector.select(ctx('weather'), registry(), { signal: controller.signal });
      await tick(1);
      const reason = new DOMException('stop', 'AbortError');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(performance.now() - started).toBeLessThan(1_000);

      const aborted = new AbortController();
      aborted.abort(new Error('already gone'));
      await expect(selector.select(ctx('weather'), registry(), { signal: aborted.signal })).rejects.toThrow(
        'already gone',
      );
    });
    expect(seen).toEqual([]);
  });
});
