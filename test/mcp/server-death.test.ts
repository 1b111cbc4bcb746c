/**
 * A Streamable HTTP server that dies while a `tools/call` runs: a real published server
 * (`@modelcontextprotocol/server-everything`, streamableHttp mode, on loopback) is killed
 * mid-call. The call must end at once with an error result saying the connection was lost,
 * not wait out the per-call timeout (60 s by default), and the run goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type McpFetch, type McpMount, mountMcp } from '../../src/adapters/mcp/index.js';
import { BareLoop } from '../../src/loop/bare-loop.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { ofType, onTurn, openAI, useScriptedServer, wireMessages } from '../loop/helpers.js';
import { type EverythingServer, startEverythingHttp } from './npm-servers.js';

const model = useScriptedServer();
const LONG = 'everything__trigger-long-running-operation';

let server: EverythingServer | undefined;
const mounts: McpMount[] = [];
afterEach(async () => {
  await Promise.all(mounts.splice(0).map((mount) => mount.unmount()));
  server?.kill();
  server = undefined;
});

/** A fetch that reports when the server has accepted a `tools/call` (its response has begun). */
function watchingFetch(): { fetch: McpFetch; callAccepted: Promise<void> } {
  let accepted!: () => void;
  const callAccepted = new Promise<void>((resolve) => (accepted = resolve));
  const fetchVia: McpFetch = async (input, init) => {
    const response = await fetch(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) accepted();
    return response;
  };
  return { fetch: fetchVia, callAccepted };
}

describe('a Streamable HTTP server that dies mid-call (server-everything, killed)', () => {
  it('fails the in-flight call at once with "connection lost"; the run goes on to its next turn', async () => {
    server = await startEverythingHttp();
    const registry = new ToolRegistry();
    const watch = watchingFetch();
    mounts.push(
      await mountMcp(registry, { url: server.url, prefix: 'everything', fetch: watch.fetch, onError: () => undefined }),
    );
    expect(registry.has(LONG)).toBe(true);

    model.current.enqueue(
      { toolCalls: [{ id: 'call_1', name: LONG, arguments: { duration: 30, steps: 1 } }] },
      { text: 'The operation was lost: the server went away.' },
    );
    const run = new BareLoop({ client: openAI(model.current), registry }).run('Run the long operation.');
    const events: LoopEvent[] = [];
    let killedAt = 0;
    let resultAt = 0;
    const collecting = (async () => {
      for await (const event of run) {
        if (event.type === 'tool_result') resultAt = performance.now();
        events.push(event);
      }
    })();
    await watch.callAccepted;
    killedAt = performance.now();
    server.kill();
    await collecting;

    const result = onTurn(events, 'tool_result', 1).result;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^tool "everything__trigger-long-running-operation" failed: MCP server everything unreachable: connection lost during tools\/call "trigger-long-running-operation" \(.+\)$/,
    );
    // Ended by the connection's loss, not by the 60 s per-call timeout.
    expect(resultAt - killedAt).toBeLessThan(10_000);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
    expect(model.current.requests).toHaveLength(2);
    expect(wireMessages(model.current.requests[1]).find((message) => message.role === 'tool')).toMatchObject({
      tool_call_id: 'call_1',
      content: result.content,
    });
  }, 90_000);
});
