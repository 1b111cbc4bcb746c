import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { collect, ofType, openAI, PROVIDERS, recordingAsyncSelector, toolbox, useScriptedServer } from './helpers.js';

const server = useScriptedServer();

describe('cancellation', { timeout: 5_000 }, () => {
  it('an async selector that never resolves does not delay a cancelled run (abort → done ≤ 50 ms)', async () => {
    const { registry } = toolbox();
    let called!: () => void;
    const selecting = new Promise<void>((resolve) => (called = resolve));
    const selector = recordingAsyncSelector(() => {
      called();
      return new Promise(() => undefined); // never settles, ignores the signal
    }, 'stuck');
    const controller = new AbortController();
    const run = new BareLoop({ client: openAI(server.current), registry })
      .withAsyncToolSelector(selector)
      .run('weather', { signal: controller.signal });

    let abortedAt = 0;
    let doneAt = 0;
    const events: LoopEvent[] = [];
    void selecting.then(() => {
      abortedAt = performance.now();
      controller.abort();
    });
    for await (const event of run) {
      events.push(event);
      if (event.type === 'done') doneAt = performance.now();
    }
    expect(abortedAt).toBeGreaterThan(0);
    expect(doneAt - abortedAt).toBeLessThanOrEqual(50);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(ofType(events, 'error')).toEqual([]);
    expect(ofType(events, 'request')).toEqual([]);
    expect(selector.signals[0]?.aborted).toBe(true);
    expect(server.current.requests).toHaveLength(0);
    expect((await run.result()).stopReason).toBe('cancelled');
  });

  it('a signal aborted before the run starts ends it at once without a request', async () => {
    const { registry } = toolbox();
    const controller = new AbortController();
    controller.abort();
    const events = await collect(
      new BareLoop({ client: openAI(server.current), registry }).run('hi', { signal: controller.signal }),
    );
    expect(events.map((e) => e.type)).toEqual(['run_start', 'done']);
    expect(ofType(events, 'done')[0]).toMatchObject({ stopReason: 'cancelled', turns: 0 });
    expect(server.current.requests).toHaveLength(0);
  });

  describe.each(PROVIDERS)('an in-flight model request gets the signal ($provider)', ({ make }) => {
    it.each([true, false])('stream: %s — a hung reply is closed by the client', async (stream) => {
      const { registry } = toolbox();
      server.current.enqueue({ kind: 'hang' });
      const controller = new AbortController();
      const run = new BareLoop({ client: make(server.current), registry, config: { stream } }).run('hi', {
        signal: controller.signal,
      });
      const [request] = await server.current.waitForRequests(1);
      controller.abort();
      const result = await run.result();
      expect(result.stopReason).toBe('cancelled');
      expect(result.error).toBeUndefined();
      expect(await request?.settled).toBe('client-closed');
    });
  });

  it('a stream that hangs mid-reply is closed when the run is cancelled', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'one two three four', interrupt: { afterEvents: 3, action: 'hang' } });
    const controller = new AbortController();
    const events: LoopEvent[] = [];
    for await (const event of new BareLoop({ client: openAI(server.current), registry }).run('count', {
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.type === 'text') controller.abort();
    }
    expect(ofType(events, 'text').length).toBeGreaterThan(0);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(await server.current.requests[0]?.settled).toBe('client-closed');
  });

  it('tool handlers get the signal, and the run stops after them', async () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    const { registry } = toolbox({
      get_weather: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            seen.push(signal.aborted);
            reject(signal.reason);
          });
          controller.abort();
        }),
    });
    server.current.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const run = new BareLoop({ client: openAI(server.current), registry }).run('weather', {
      signal: controller.signal,
    });
    const events = await collect(run);
    expect(seen).toEqual([true]);
    expect(ofType(events, 'tool_result')[0]?.result).toMatchObject({
      isError: true,
      content: 'tool "get_weather" was cancelled',
    });
    expect(ofType(events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(server.current.requests).toHaveLength(1); // no second turn
  });

  it('breaking out of the for-await cancels the run: the request is closed', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ kind: 'hang' });
    const run = new BareLoop({ client: openAI(server.current), registry }).run('hi');
    for await (const event of run) {
      if (event.type === 'request') {
        await server.current.waitForRequests(1); // the request is on the wire
        break;
      }
    }
    const result = await run.result();
    expect(result.stopReason).toBe('cancelled');
    expect(await server.current.requests[0]?.settled).toBe('client-closed');
  });

  it("breaking out during a tool call aborts the handler's signal", async () => {
    let handlerSignal: AbortSignal | undefined;
    let release!: () => void;
    const { registry } = toolbox({
      search_docs: (_args, { signal }) => {
        handlerSignal = signal;
        return new Promise<string>((resolve) => {
          release = () => resolve('late');
          signal.addEventListener('abort', () => resolve('stopped'));
        });
      },
    });
    server.current.enqueue({ toolCalls: [{ name: 'search_docs', arguments: { query: 'x' } }] });
    const run = new BareLoop({ client: openAI(server.current), registry }).run('search');
    for await (const event of run) {
      if (event.type === 'tool_call') break;
    }
    const result = await run.result();
    expect(handlerSignal?.aborted).toBe(true);
    expect(result.stopReason).toBe('cancelled');
    expect(server.current.requests).toHaveLength(1);
    release();
  });
});
