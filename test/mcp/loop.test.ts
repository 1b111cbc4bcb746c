/**
 * The loop over an MCP-mounted surface: two real MCP servers (≈50 tools) mounted into one
 * registry, the scripted model server driving real provider clients, selection each turn,
 * and calls that travel to the MCP servers and back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type McpMount, mountMcp } from '../../src/adapters/mcp/index.js';
import { BareLoop } from '../../src/loop/bare-loop.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { toolText } from '../../src/text/words.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import {
  anthropic,
  collect,
  ofType,
  onTurn,
  openAI,
  useScriptedServer,
  wireMessages,
  wireToolNames,
} from '../loop/helpers.js';
import { aborted, type GithubTestServer, type McpTestServer, startGithubServer, startNotesServer } from './servers.js';

const model = useScriptedServer();
const NOTES_TOKEN = 'notes-secret';

let github: GithubTestServer;
let notes: McpTestServer;
const mounts: McpMount[] = [];

beforeAll(async () => {
  [github, notes] = await Promise.all([startGithubServer(), startNotesServer({ token: NOTES_TOKEN })]);
});
afterEach(async () => {
  await Promise.all(mounts.splice(0).map((mount) => mount.unmount()));
  github.reset();
  notes.reset();
});
afterAll(async () => {
  await Promise.all([github.close(), notes.close()]);
});

/** One registry with both servers mounted under their prefixes. */
async function mountedSurface(servers: { github?: McpTestServer; notes?: McpTestServer } = {}): Promise<ToolRegistry> {
  const registry = new ToolRegistry();
  const onError = (error: Error) => expect.fail(error.message);
  const [gh, nt] = await Promise.all([
    mountMcp(registry, { url: (servers.github ?? github).url, prefix: 'github', onError }),
    mountMcp(registry, {
      url: (servers.notes ?? notes).url,
      prefix: 'notes',
      headers: { Authorization: `Bearer ${NOTES_TOKEN}` },
      onError,
    }),
  ]);
  mounts.push(gh, nt);
  return registry;
}

const ISSUE_ARGS = {
  owner: 'octo',
  repo: 'widgets',
  title: 'Crash on startup',
  body: 'The app crashes when it starts.',
};

describe('the loop over mounted MCP servers', () => {
  it('embedding selection narrows ~50 MCP tools; the call reaches the server; its output rides tool_result and the next request', async () => {
    const registry = await mountedSurface();
    expect(registry.size).toBe(51);
    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder, { topK: 6 });
    model.current.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'github__create_issue', arguments: ISSUE_ARGS }] },
      { text: 'Filed issue #42.' },
    );

    const loop = new BareLoop({ client: openAI(model.current), registry }).withAsyncToolSelector(selector);
    const events = await collect(
      loop.run('Create a new issue in the octo/widgets GitHub repository: the app crashes on startup.'),
    );

    const selection = onTurn(events, 'selection', 1);
    expect(selection.registered).toBe(51);
    expect(selection.fellOpen).toBeNull();
    expect(selection.advertised).toHaveLength(6);
    expect(selection.advertised).toContain('github__create_issue');
    expect(wireToolNames(model.current.requests[0])).toEqual(selection.advertised);
    expect(selector.stats.corpusEmbeds).toBe(51);

    expect(github.calls.map((call) => [call.tool, call.args])).toEqual([['create_issue', ISSUE_ARGS]]);
    const result = onTurn(events, 'tool_result', 1).result;
    expect(result).toEqual({
      toolCallId: 'call_1',
      name: 'github__create_issue',
      content: 'Created issue #42 "Crash on startup" in octo/widgets',
      isError: false,
    });
    const toolMessage = wireMessages(model.current.requests[1]).find((message) => message.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_1', content: result.content });
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('keyword selection over the mounted surface, Anthropic wire, notes server behind a bearer token', async () => {
    const registry = await mountedSurface();
    model.current.enqueue(
      { toolCalls: [{ name: 'notes__read_file', arguments: { path: 'docs/setup.md' } }] },
      { text: 'Run npm ci, then npm test.' },
    );
    const loop = new BareLoop({ client: anthropic(model.current), registry }).withToolSelector(new KeywordSelector());
    const events = await collect(loop.run('Read the file docs/setup.md from my notes workspace.'));

    const selection = onTurn(events, 'selection', 1);
    expect(selection.fellOpen).toBeNull();
    expect(selection.advertised).toContain('notes__read_file');
    expect(selection.advertised.length).toBeLessThan(selection.registered);
    expect(wireToolNames(model.current.requests[0])).toEqual(selection.advertised);
    expect(notes.calls.map((call) => [call.tool, call.args, call.headers.authorization])).toEqual([
      ['read_file', { path: 'docs/setup.md' }, `Bearer ${NOTES_TOKEN}`],
    ]);
    expect(onTurn(events, 'tool_result', 1).result).toMatchObject({
      isError: false,
      content: 'Run npm ci, then npm test.',
    });
  });

  it('hybrid selection over the mounted surface finds the tool the prompt describes', async () => {
    const registry = await mountedSurface();
    model.current.enqueue({ text: 'Here are the logs.' });
    const selector = new HybridSelector(countingEmbedder(), { topK: 5 });
    const events = await collect(
      new BareLoop({ client: openAI(model.current), registry })
        .withAsyncToolSelector(selector)
        .run('Download the logs of the failing GitHub Actions job'),
    );
    expect(onTurn(events, 'selection', 1).advertised).toContain('github__get_job_logs');
  });

  it('an isError result reaches the model as an error tool result, and the run goes on', async () => {
    const registry = await mountedSurface();
    model.current.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'notes__read_file', arguments: { path: 'nope.md' } }] },
      { text: 'That file does not exist.' },
    );
    const events = await collect(new BareLoop({ client: openAI(model.current), registry }).run('Read nope.md'));
    expect(onTurn(events, 'tool_result', 1).result).toEqual({
      toolCallId: 'call_1',
      name: 'notes__read_file',
      content: 'tool "notes__read_file" failed: ENOENT: no such file: nope.md',
      isError: true,
    });
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('a server that is down gives its calls a clear error result; the other server answers in the same turn', async () => {
    const flaky = await startNotesServer({ token: NOTES_TOKEN });
    try {
      const registry = await mountedSurface({ notes: flaky });
      await flaky.stop();
      model.current.enqueue(
        {
          toolCalls: [
            { id: 'a', name: 'notes__list_notes', arguments: {} },
            { id: 'b', name: 'github__get_issue', arguments: { owner: 'octo', repo: 'widgets', issue_number: 7 } },
          ],
        },
        { text: 'Notes are unavailable; issue 7 found.' },
      );
      const events = await collect(
        new BareLoop({ client: openAI(model.current), registry }).run('List my notes and get issue 7'),
      );
      const results = Object.fromEntries(
        ofType(events, 'tool_result').map((event) => [event.result.toolCallId, event.result]),
      );
      expect(results.a?.isError).toBe(true);
      // Either the call's own request fails, or the probe that follows the broken notification
      // stream finds the server gone first and ends the call as "connection lost".
      expect(results.a?.content).toMatch(
        /^tool "notes__list_notes" failed: MCP server notes unreachable: (connection lost during tools\/call "list_notes" \()?fetch failed/,
      );
      expect(results.b).toMatchObject({ isError: false, content: expect.stringMatching(/^get_issue ok: /) });
      expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
    } finally {
      await flaky.close();
    }
  });

  it('cancelling the run reaches the in-flight MCP call: the server sees the cancellation', async () => {
    const registry = await mountedSurface();
    github.behave('run_long_job', async (_args, call) => {
      await aborted(call.signal);
      return { content: [{ type: 'text', text: 'stopped' }] };
    });
    model.current.enqueue({
      toolCalls: [{ name: 'github__run_long_job', arguments: { owner: 'octo', repo: 'widgets' } }],
    });
    const controller = new AbortController();
    const started = github.nextCall('run_long_job');
    const run = new BareLoop({ client: openAI(model.current), registry }).run(
      'Run the maintenance job on octo/widgets',
      { signal: controller.signal },
    );
    const collecting = collect(run);
    const received = await started;
    controller.abort();
    const events = await collecting;

    expect(ofType(events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(onTurn(events, 'tool_result', 1).result).toMatchObject({
      isError: true,
      content: 'tool "github__run_long_job" was cancelled',
    });
    await aborted(received.signal); // notifications/cancelled arrived
    expect(model.current.requests).toHaveLength(1);
  });

  it("unmounting between runs takes the tools off the next run's surface", async () => {
    const registry = await mountedSurface();
    const notesMount = mounts[1] as McpMount;
    await notesMount.unmount();
    model.current.enqueue({ text: 'ok' });
    const events = await collect(new BareLoop({ client: openAI(model.current), registry }).run('hi'));
    expect(onTurn(events, 'selection', 1).registered).toBe(31);
    expect(wireToolNames(model.current.requests[0])?.some((name) => name.startsWith('notes__'))).toBe(false);
  });
});

describe('a tool list that changes mid-run', () => {
  it('list_changed → one generation change → the next turn re-embeds exactly the changed tool texts', async () => {
    const server = await startGithubServer();
    try {
      const registry = await mountedSurface({ github: server });
      await server.waitForStreams();
      const embedder = countingEmbedder();
      const selector = new EmbeddingSelector(embedder, { topK: 6 });
      const generations: number[] = [];
      registry.onChange((generation) => generations.push(generation));

      const changedDescription =
        'Search code across GitHub repositories and discussions, with qualifiers like repo: and language:.';
      const added = {
        name: 'list_discussions',
        description: 'List discussions in a GitHub repository forum, newest first.',
        inputSchema: {
          type: 'object' as const,
          properties: { owner: { type: 'string' }, repo: { type: 'string' } },
          required: ['owner', 'repo'],
        },
      };
      // Turn 1's call changes the server's list; the answer waits until the registry has the
      // new generation, so turn 2 is guaranteed to select over it.
      server.behave('search_code', async () => {
        const applied = new Promise<void>((resolve) => {
          const stop = registry.onChange(() => {
            stop();
            resolve();
          });
        });
        await server.changeTools((tools) => {
          tools.push(added);
          const search = tools.find((tool) => tool.name === 'search_code');
          if (search) search.description = changedDescription;
          tools.splice(
            tools.findIndex((tool) => tool.name === 'star_repository'),
            1,
          );
        });
        await applied;
        return { content: [{ type: 'text', text: '3 results in octo/widgets' }] };
      });
      model.current.enqueue(
        { toolCalls: [{ name: 'github__search_code', arguments: { q: 'flaky repo:octo/widgets' } }] },
        { toolCalls: [{ name: 'github__list_discussions', arguments: { owner: 'octo', repo: 'widgets' } }] },
        { text: 'Found 3 code results and the discussions.' },
      );

      const embedsAtSelection: number[] = [];
      const events: LoopEvent[] = [];
      const loop = new BareLoop({ client: openAI(model.current), registry }).withAsyncToolSelector(selector);
      const prompt = 'Search the code and the discussions of octo/widgets for the flaky test.';
      for await (const event of loop.run(prompt)) {
        events.push(event);
        if (event.type === 'selection') embedsAtSelection.push(selector.stats.corpusEmbeds);
      }

      expect(generations).toHaveLength(1);
      expect(embedsAtSelection).toEqual([51, 53, 53]);
      const corpusTexts = embedder.texts.filter((text) => text !== prompt);
      expect(corpusTexts.slice(51).sort()).toEqual(
        [
          toolText('github__search_code', changedDescription),
          toolText('github__list_discussions', added.description),
        ].sort(),
      );

      expect(onTurn(events, 'selection', 1).registered).toBe(51);
      const second = onTurn(events, 'selection', 2);
      expect(second.registered).toBe(51); // one added, one removed
      expect(second.advertised).toContain('github__list_discussions');
      expect(second.advertised).not.toContain('github__star_repository');
      expect(wireToolNames(model.current.requests[1])).toContain('github__list_discussions');
      expect(server.calls.map((call) => [call.tool, call.args])).toEqual([
        ['search_code', { q: 'flaky repo:octo/widgets' }],
        ['list_discussions', { owner: 'octo', repo: 'widgets' }],
      ]);
      expect(ofType(events, 'tool_result').map((event) => event.result.isError)).toEqual([false, false]);
    } finally {
      await server.close();
    }
  });
});
