import { describe, expect, it } from 'vitest';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { collect, ofType, openAI, toolbox, useScriptedServer } from './helpers.js';

const server = useScriptedServer();
const PROMPT = 'Tell Kim the build is green and check the weather in Oslo.';

function selector() {
  return new HybridSelector(countingEmbedder(), { topK: 2, cache: memoryVectorCache() });
}

describe('learning from the loop (opt-in)', () => {
  it('a turn whose calls all succeed records the run prompt → the tools called, turn by turn', async () => {
    const { registry } = toolbox();
    const hybrid = selector();
    const loop = new BareLoop({ client: openAI(server.current), registry })
      .withAsyncToolSelector(hybrid)
      .withLearning();
    server.current.enqueue(
      { toolCalls: [{ id: 'a', name: 'send_email', arguments: { to: 'kim', body: 'green' } }] },
      { toolCalls: [{ id: 'b', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Done.' },
    );
    const events = await collect(loop.run(PROMPT));
    expect(ofType(events, 'warning')).toEqual([]);
    expect(hybrid.learnedCount).toBe(1);
    // The same prompt again is a duplicate with both tools: both turns were recorded.
    const summary = await hybrid.learn([{ query: PROMPT, tools: ['send_email', 'get_weather'] }]);
    expect(summary).toMatchObject({ learned: 0, updated: 0, duplicates: 1, total: 1 });
  });

  it('a turn with a failed call, or an unknown tool, records nothing', async () => {
    const { registry } = toolbox({
      send_email: () => {
        throw new Error('smtp down');
      },
    });
    const hybrid = selector();
    const loop = new BareLoop({ client: openAI(server.current), registry })
      .withAsyncToolSelector(hybrid)
      .withLearning();
    server.current.enqueue(
      {
        toolCalls: [
          { id: 'a', name: 'send_email', arguments: { to: 'kim', body: 'green' } },
          { id: 'b', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { toolCalls: [{ id: 'c', name: 'no_such_tool', arguments: {} }] },
      { text: 'Partly done.' },
    );
    await collect(loop.run(PROMPT));
    expect(hybrid.learnedCount).toBe(0);
  });

  it('records with the refit in the background, so a recorded turn never holds up the next request', async () => {
    const { registry } = toolbox();
    const hybrid = selector();
    const fits: unknown[] = [];
    const learn = hybrid.learn.bind(hybrid);
    hybrid.learn = (examples, options) => {
      fits.push(options?.fit);
      return learn(examples, options);
    };
    const loop = new BareLoop({ client: openAI(server.current), registry })
      .withAsyncToolSelector(hybrid)
      .withLearning();
    server.current.enqueue(
      { toolCalls: [{ id: 'b', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Sunny.' },
    );
    await collect(loop.run(PROMPT));
    expect(fits).toEqual(['background']);
    expect(hybrid.learnedCount).toBe(1);
  });

  it('records nothing unless enabled', async () => {
    const { registry } = toolbox();
    const hybrid = selector();
    const loop = new BareLoop({ client: openAI(server.current), registry }).withAsyncToolSelector(hybrid);
    server.current.enqueue(
      { toolCalls: [{ id: 'b', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Sunny.' },
    );
    await collect(loop.run(PROMPT));
    expect(hybrid.learnedCount).toBe(0);
  });

  it('a failing learn is a warning; the run still answers', async () => {
    const { registry } = toolbox();
    const failing = {
      name: 'learns-badly',
      select: (_ctx: unknown, all: readonly any[]) => all,
      learn: async () => {
        throw new Error('disk full');
      },
    };
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector(failing).withLearning();
    server.current.enqueue(
      { toolCalls: [{ id: 'b', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Sunny.' },
    );
    const events = await collect(loop.run(PROMPT));
    expect(ofType(events, 'warning').map((w) => [w.code, w.message])).toEqual([
      ['learning', 'learning from this turn failed: disk full'],
    ]);
    expect(ofType(events, 'done')[0]?.text).toBe('Sunny.');
  });
});
