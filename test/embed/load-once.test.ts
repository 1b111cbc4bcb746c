import { describe, expect, it } from 'vitest';
import { loadableEmbedder, loadOnce } from '../../src/embed/load-once.js';

describe('loadOnce', () => {
  it('loads once for concurrent callers, retries after a failure, and hands back what reset forgets', async () => {
    let calls = 0;
    const model = loadOnce(async () => {
      calls++;
      if (calls === 1) throw new Error('server not up yet');
      return { session: calls };
    });
    await expect(model.get()).rejects.toThrow('server not up yet');
    expect(model.value).toBeUndefined();
    const [a, b] = await Promise.all([model.get(), model.get()]);
    expect(a).toBe(b);
    expect(calls).toBe(2);
    expect(model.value).toEqual({ session: 2 });
    expect(await model.reset()).toEqual({ session: 2 });
    expect(model.value).toBeUndefined();
    expect(await model.reset()).toBeUndefined();
    expect(await model.get()).toEqual({ session: 3 });
  });
});

describe('loadableEmbedder', () => {
  // A fake session that records which calls overlap: each call is released by hand.
  function fakeSession() {
    const log: string[] = [];
    let running = 0;
    const pending: Array<() => void> = [];
    const run = async (label: string): Promise<Float32Array> => {
      running++;
      if (running > 1) log.push('overlap');
      log.push(`start ${label}`);
      await new Promise<void>((resolve) => pending.push(resolve));
      running--;
      log.push(`end ${label}`);
      return new Float32Array([label.length]);
    };
    const releaseNext = async () => {
      while (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      pending.shift()?.();
    };
    return { log, run, releaseNext, pending };
  }

  it('runs one model call at a time, and overlapping embeds take turns call by call', async () => {
    const session = fakeSession();
    const embedder = loadableEmbedder({
      id: 'fake',
      dimensions: () => 1,
      model: loadOnce(async () => ({ backend: 'cpu' as const })),
      // One model call per text, as a corpus of full-length texts is embedded.
      embed: async (texts, _options, modelCall) => {
        const out: Float32Array[] = [];
        for (const text of texts) out.push(await modelCall(() => session.run(text)));
        return out;
      },
      release: () => undefined,
    });
    const corpus = embedder.embed(['long-1', 'long-2', 'long-3']);
    while (session.pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const query = embedder.embed(['q']); // arrives while the corpus's first call runs
    let queryDone = false;
    void query.then(() => {
      queryDone = true;
    });
    await session.releaseNext(); // long-1 ends; q is next, before long-2
    await session.releaseNext();
    await query;
    expect(queryDone).toBe(true);
    await session.releaseNext();
    await session.releaseNext();
    await corpus;
    expect(session.log).toEqual([
      'start long-1',
      'end long-1',
      'start q',
      'end q',
      'start long-2',
      'end long-2',
      'start long-3',
      'end long-3',
    ]);
  });

  it('a call that fails or is aborted while queued does not block the calls behind it', async () => {
    const embedder = loadableEmbedder({
      id: 'fake',
      dimensions: () => 1,
      model: loadOnce(async () => ({ backend: 'cpu' as const })),
      embed: async (texts, options, modelCall) =>
        Promise.all(
          texts.map((text) =>
            modelCall(async () => {
              options?.signal?.throwIfAborted();
              if (text === 'bad') throw new Error('model call failed');
              return new Float32Array([text.length]);
            }),
          ),
        ),
      release: () => undefined,
    });
    const aborted = new AbortController();
    aborted.abort(new Error('client went away'));
    const results = await Promise.allSettled([
      embedder.embed(['bad']),
      embedder.embed(['abc'], { signal: aborted.signal }),
      embedder.embed(['abcd']),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(results[2]?.status === 'fulfilled' && Array.from(results[2].value[0] ?? [])).toEqual([4]);
  });
});
