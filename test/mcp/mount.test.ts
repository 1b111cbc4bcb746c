import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  assignNames,
  type McpMount,
  type McpMountOptions,
  mountMcp,
  renderContent,
} from '../../src/adapters/mcp/index.js';
import type { ToolCall } from '../../src/message.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import {
  aborted,
  type GithubTestServer,
  githubTools,
  type McpTestServer,
  sleep,
  startGithubServer,
  startNotesServer,
} from './servers.js';

const NOTES_TOKEN = 'notes-secret';
const notesAuth = { Authorization: `Bearer ${NOTES_TOKEN}` };

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

/** Mount and remember to unmount after the test. */
async function mount(registry: ToolRegistry, options: McpMountOptions): Promise<McpMount> {
  const mounted = await mountMcp(registry, { onError: (error) => expect.fail(error.message), ...options });
  mounts.push(mounted);
  return mounted;
}

const call = (name: string, args: Record<string, unknown> | string, id = 'c1'): ToolCall => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

/** Resolves at the registry's next generation change. */
const nextChange = (registry: ToolRegistry) =>
  new Promise<number>((resolve) => {
    const stop = registry.onChange((generation) => {
      stop();
      resolve(generation);
    });
  });

describe('mounting', () => {
  it('lists every page, registers the tools in server order with the prefix, in one generation change', async () => {
    const registry = new ToolRegistry();
    const changes: number[] = [];
    registry.onChange((generation) => changes.push(generation));
    const mounted = await mount(registry, { url: github.url, prefix: 'github' });

    const expected = githubTools().map((tool) => `github__${tool.name}`);
    expect(githubTools().length).toBeGreaterThan(3 * github.pageSize);
    expect(github.listRequests).toBe(Math.ceil(githubTools().length / github.pageSize));
    expect(mounted.tools).toEqual(expected);
    expect(registry.schemas().map((tool) => tool.name)).toEqual(expected);
    expect(changes).toHaveLength(1);
    expect(mounted.name).toBe('github');
  });

  it('maps inputSchema to parameters and the description (else the title) to the description', async () => {
    const tools = [
      {
        name: 'with_description',
        title: 'Title',
        description: 'The description.',
        inputSchema: { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] },
      },
      { name: 'title_only', title: 'Only a title', inputSchema: { type: 'object' as const } },
      { name: 'nothing', inputSchema: { type: 'object' as const } },
    ];
    const server = await startGithubServer({ tools });
    try {
      const registry = new ToolRegistry();
      await mount(registry, { url: server.url });
      expect(registry.get('with_description')).toEqual({
        name: 'with_description',
        description: 'The description.',
        parameters: tools[0]?.inputSchema,
      });
      expect(registry.get('title_only')?.description).toBe('Only a title');
      expect(registry.get('nothing')).toEqual({ name: 'nothing', description: '', parameters: { type: 'object' } });
    } finally {
      await server.close();
    }
  });

  it('McpServer tools (zod) arrive as JSON Schema', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: notes.url, prefix: 'notes', headers: notesAuth });
    expect(registry.size).toBe(20);
    expect(registry.get('notes__write_file')?.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    });
  });

  it('rejects a server that is down with a clear error, leaving the registry alone', async () => {
    const server = await startGithubServer();
    await server.stop();
    const registry = new ToolRegistry();
    await expect(mountMcp(registry, { url: server.url, prefix: 'gh' })).rejects.toThrow(
      /^MCP server gh unreachable: fetch failed/,
    );
    expect(registry.size).toBe(0);
    expect(registry.generation).toBe(0);
  });

  it('rejects tools whose names are taken (use a prefix), leaving the registry alone and closing the session', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url });
    const generation = registry.generation;
    const other = await startGithubServer();
    try {
      await expect(mountMcp(registry, { url: other.url, name: 'github-2' })).rejects.toThrow(
        /MCP server github-2: tools "list_issues", .* already registered; mount it with a distinct prefix/,
      );
      expect(registry.generation).toBe(generation);
      expect(registry.size).toBe(githubTools().length);
      expect(other.http.some((request) => request.method === 'DELETE')).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('rejects bad options before connecting', async () => {
    const registry = new ToolRegistry();
    await expect(mountMcp(registry, { url: 'not a url' })).rejects.toThrow(/absolute http\(s\) URL/);
    await expect(mountMcp(registry, { url: 'ftp://example.com/mcp' })).rejects.toThrow(/must be http\(s\)/);
    await expect(mountMcp(registry, { url: github.url, prefix: 'git hub' })).rejects.toThrow(/prefix must match/);
    await expect(mountMcp(registry, { url: github.url, timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});

describe('names', () => {
  it('prefix keeps two servers apart: the same tool name reaches each its own server', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    await mount(registry, { url: notes.url, prefix: 'notes', headers: notesAuth });
    expect(registry.has('github__delete_file')).toBe(true);
    expect(registry.has('notes__delete_file')).toBe(true);

    const fromGithub = await registry.dispatch(
      call('github__delete_file', { owner: 'octo', repo: 'widgets', path: 'a.txt', message: 'rm', branch: 'main' }),
    );
    const fromNotes = await registry.dispatch(call('notes__delete_file', { path: 'docs/setup.md' }));
    expect(fromGithub).toMatchObject({ isError: false, content: expect.stringMatching(/^delete_file ok: /) });
    expect(fromNotes).toEqual({
      toolCallId: 'c1',
      name: 'notes__delete_file',
      content: 'deleted docs/setup.md',
      isError: false,
    });
    expect(github.calls.map((c) => c.tool)).toEqual(['delete_file']);
    expect(notes.calls.map((c) => [c.tool, c.args])).toEqual([['delete_file', { path: 'docs/setup.md' }]]);
  });

  it('makes server names valid wire names, stable and collision-free, and calls the server by its own name', async () => {
    const long = `summarise_${'very_'.repeat(14)}long_name`;
    const tools = ['repo.list', 'repo_list', 'repo/list', long, 'ok-name'].map((name) => ({
      name,
      description: `Tool ${name}.`,
      inputSchema: { type: 'object' as const },
    }));
    const server = await startGithubServer({ tools });
    try {
      const registry = new ToolRegistry();
      const mounted = await mount(registry, { url: server.url, prefix: 'x' });
      for (const name of mounted.tools) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(new Set(mounted.tools).size).toBe(tools.length);
      expect(mounted.tools).toContain('x__repo_list'); // the valid name keeps its readable form
      expect(mounted.tools).toContain('x__ok-name');
      const dotted = mounted.tools[0] as string;
      expect(dotted).toMatch(/^x__repo_list_[0-9a-f]{8}$/);
      await registry.dispatch(call(dotted, {}));
      await registry.dispatch(call(mounted.tools[3] as string, {}));
      expect(server.calls.map((c) => c.tool)).toEqual(['repo.list', long]);
    } finally {
      await server.close();
    }
  });

  it('assignNames: valid names first, readable forms next, hashes last; earlier names are kept', () => {
    expect(Object.fromEntries(assignNames(['a.b', 'a_b'], 'p'))).toEqual({
      'a.b': expect.stringMatching(/^p__a_b_[0-9a-f]{8}$/),
      a_b: 'p__a_b',
    });
    expect(Object.fromEntries(assignNames(['a.b'], undefined))).toEqual({ 'a.b': 'a_b' });
    expect(Object.fromEntries(assignNames(['x'], 'gh_'))).toEqual({ x: 'gh_x' });
    // A tool named before keeps its name even when a newcomer would now claim it.
    const kept = assignNames(['a_b', 'a.b'], 'p', new Map([['a.b', 'p__a_b']]));
    expect(kept.get('a.b')).toBe('p__a_b');
    expect(kept.get('a_b')).toMatch(/^p__a_b_[0-9a-f]{8}$/);
    const long = assignNames(['y'.repeat(100)], 'p').get('y'.repeat(100)) as string;
    expect(long).toHaveLength(64);
  });
});

describe('dispatch', () => {
  it('sends the call with its arguments and returns the text', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    const args = { owner: 'octo', repo: 'widgets', title: 'Crash on start', labels: ['bug'] };
    const result = await registry.dispatch(call('github__create_issue', args, 'id-7'));
    expect(result).toEqual({
      toolCallId: 'id-7',
      name: 'github__create_issue',
      content: 'Created issue #42 "Crash on start" in octo/widgets',
      isError: false,
    });
    expect(github.calls.map((c) => [c.tool, c.args])).toEqual([['create_issue', args]]);
  });

  it('joins multiple text parts with newlines', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    const result = await registry.dispatch(call('github__get_job_logs', { owner: 'o', repo: 'r', job_id: 7 }));
    expect(result.content).toBe('step 3/7: npm test\nFAIL test/loop.test.ts');
  });

  it('summarises non-text content: images, embedded resources, resource links', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: notes.url, prefix: 'notes', headers: notesAuth });
    expect((await registry.dispatch(call('notes__render_diagram', {}))).content).toBe(
      'Diagram rendered.\n[image image/png, 12 bytes]',
    );
    expect((await registry.dispatch(call('notes__export_notes', {}))).content).toBe(
      'Exported 1 notes.\n[resource notes://export.md]\n## Standup\nShip the MCP adapter.\n[resource link notes://archive.zip (archive.zip)]',
    );
  });

  it('renderContent: blobs, audio, structured content without content', () => {
    expect(
      renderContent({
        content: [
          { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        ],
      }),
    ).toBe('[resource file:///a.bin, application/octet-stream, 3 bytes]');
    expect(renderContent({ content: [{ type: 'audio', data: 'AAA=', mimeType: 'audio/wav' }] })).toBe(
      '[audio audio/wav, 2 bytes]',
    );
    expect(renderContent({ content: [], structuredContent: { temperature: 21 } })).toBe('{"temperature":21}');
  });

  it('an isError result becomes an error result carrying the server text', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: notes.url, prefix: 'notes', headers: notesAuth });
    const result = await registry.dispatch(call('notes__read_file', { path: 'missing.md' }));
    expect(result).toEqual({
      toolCallId: 'c1',
      name: 'notes__read_file',
      content: 'tool "notes__read_file" failed: ENOENT: no such file: missing.md',
      isError: true,
    });
  });

  it('an isError result with several parts joins them', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    github.behave('merge_pull_request', () => ({
      isError: true,
      content: [
        { type: 'text', text: 'Pull request #5 is not mergeable.' },
        { type: 'text', text: 'Required check "ci" failed.' },
      ],
    }));
    const result = await registry.dispatch(
      call('github__merge_pull_request', { owner: 'o', repo: 'r', pull_number: 5 }),
    );
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      'tool "github__merge_pull_request" failed: Pull request #5 is not mergeable.\nRequired check "ci" failed.',
    );
  });

  it('a protocol error (JSON-RPC error response) becomes an error result naming the server', async () => {
    const server = await startGithubServer();
    try {
      const registry = new ToolRegistry();
      await mount(registry, { url: server.url, prefix: 'github' });
      // Removed without telling clients, so the registry still offers it.
      await server.changeTools(
        (tools) =>
          tools.splice(
            tools.findIndex((t) => t.name === 'star_repository'),
            1,
          ),
        { notify: false },
      );
      const result = await registry.dispatch(call('github__star_repository', { owner: 'o', repo: 'r' }));
      expect(result.isError).toBe(true);
      expect(result.content).toBe(
        'tool "github__star_repository" failed: MCP server github returned an error for tools/call "star_repository": MCP error -32602: Unknown tool: star_repository',
      );
      // The connection is fine: other tools keep working.
      expect((await registry.dispatch(call('github__list_branches', { owner: 'o', repo: 'r' }))).isError).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('validates arguments in the registry before anything goes to the server', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    const result = await registry.dispatch(call('github__create_issue', { owner: 'octo', repo: 'widgets' }));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^invalid arguments for "github__create_issue": .*title/);
    expect(github.calls).toEqual([]);
  });

  it('a call that outlives timeoutMs is an unreachable error; the server is told to cancel; the connection stays usable', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github', timeoutMs: 2_000 });
    github.behave('run_long_job', async (_args, received) => {
      await aborted(received.signal);
      return { content: [{ type: 'text', text: 'too late' }] };
    });
    const result = await registry.dispatch(call('github__run_long_job', { owner: 'o', repo: 'r' }));
    expect(result).toMatchObject({
      isError: true,
      content:
        'tool "github__run_long_job" failed: MCP server github unreachable: no answer to tools/call "run_long_job" within 2000 ms',
    });
    await aborted(github.calls[0]?.signal as AbortSignal);
    expect((await registry.dispatch(call('github__list_branches', { owner: 'o', repo: 'r' }))).content).toMatch(
      /^list_branches ok/,
    );
  });

  it('the abort signal reaches an in-flight call: the server sees the cancellation', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    github.behave('run_long_job', async (_args, received) => {
      await aborted(received.signal);
      return { content: [{ type: 'text', text: 'cancelled job' }] };
    });
    const controller = new AbortController();
    const started = github.nextCall('run_long_job');
    const pending = registry.dispatch(call('github__run_long_job', { owner: 'o', repo: 'r' }), {
      signal: controller.signal,
    });
    const received = await started;
    expect(received.signal.aborted).toBe(false);
    controller.abort();
    expect(await pending).toMatchObject({ isError: true, content: 'tool "github__run_long_job" was cancelled' });
    await aborted(received.signal);
  });

  it('a finished call is not cancelled by a later abort of the same signal', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github' });
    const controller = new AbortController();
    await registry.dispatch(call('github__list_branches', { owner: 'o', repo: 'r' }), { signal: controller.signal });
    const posts = github.http.filter((request) => request.method === 'POST').length;
    controller.abort();
    await sleep(100);
    expect(github.http.filter((request) => request.method === 'POST').length).toBe(posts);
    expect(github.calls[0]?.signal.aborted).toBe(false);
  });
});

describe('a server that goes down', () => {
  it('yields a clear error result for its tools, other servers keep working, and it recovers after a restart', async () => {
    const server = await startNotesServer();
    try {
      const registry = new ToolRegistry();
      await mount(registry, { url: github.url, prefix: 'github' });
      await mount(registry, { url: server.url, prefix: 'notes' });
      await server.stop();

      const [down, up] = await Promise.all([
        registry.dispatch(call('notes__read_file', { path: 'README.md' }, 'a')),
        registry.dispatch(call('github__list_branches', { owner: 'o', repo: 'r' }, 'b')),
      ]);
      expect(down.isError).toBe(true);
      // The call's own request fails, or the probe after the broken notification stream got there first.
      expect(down.content).toMatch(
        /^tool "notes__read_file" failed: MCP server notes unreachable: (connection lost during tools\/call "read_file" \()?fetch failed/,
      );
      expect(up).toMatchObject({ isError: false, content: expect.stringMatching(/^list_branches ok/) });
      // Still down: still a clear error, still no throw.
      expect((await registry.dispatch(call('notes__list_notes', {}))).content).toMatch(/MCP server notes unreachable/);

      await server.restart();
      expect(await registry.dispatch(call('notes__read_file', { path: 'README.md' }))).toMatchObject({
        isError: false,
        content: '# Project\nA small agent loop.',
      });
    } finally {
      await server.close();
    }
  });

  it('a broken notification stream on a live server leaves the call in flight alone (the probe finds the server there)', async () => {
    // The GET stream's body is cut on command, as a proxy's idle timeout would; every POST
    // (the call, the liveness probe) goes through untouched.
    let cutStream!: () => void;
    let probed!: () => void;
    const probeAnswered = new Promise<void>((resolve) => (probed = resolve));
    const fetchVia = async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"method":"ping"')) probed();
      if ((init?.method ?? 'GET') !== 'GET' || !response.body) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          cutStream = () => controller.error(new TypeError('terminated'));
        },
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const registry = new ToolRegistry();
    await mount(registry, { url: github.url, prefix: 'github', fetch: fetchVia });
    await github.waitForStreams();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    github.behave('run_long_job', async () => {
      await released;
      return { content: [{ type: 'text', text: 'job done' }] };
    });
    const started = github.nextCall('run_long_job');
    const pending = registry.dispatch(call('github__run_long_job', { owner: 'o', repo: 'r' }));
    await started;
    cutStream();
    await probeAnswered;
    await sleep(50);
    release();
    expect(await pending).toMatchObject({ isError: false, content: 'job done' });
  });

  it('a restart that lost our session is reconnected transparently (404 → new session → the call)', async () => {
    const server = await startNotesServer();
    try {
      const registry = new ToolRegistry();
      await mount(registry, { url: server.url, prefix: 'notes' });
      await server.stop();
      await server.restart();
      await sleep(100); // let the client see its pooled sockets close, as any real restart allows
      expect(await registry.dispatch(call('notes__list_notes', {}))).toMatchObject({
        isError: false,
        content: 'n1: Standup',
      });
      expect(server.calls.map((c) => c.tool)).toEqual(['list_notes']);
    } finally {
      await server.close();
    }
  });
});

describe('headers', () => {
  it('reach the server on every request (initialize, list, call, notification stream)', async () => {
    const registry = new ToolRegistry();
    await mount(registry, { url: notes.url, prefix: 'notes', headers: { ...notesAuth, 'X-Team': 'loop' } });
    await registry.dispatch(call('notes__list_notes', {}));
    await notes.waitForStreams();
    const methods = new Set(notes.http.map((request) => request.method));
    expect(methods).toEqual(new Set(['POST', 'GET']));
    for (const request of notes.http) {
      expect(request.headers.authorization).toBe(`Bearer ${NOTES_TOKEN}`);
      expect(request.headers['x-team']).toBe('loop');
    }
    expect(notes.calls[0]?.headers['x-team']).toBe('loop');
  });

  it('a server that refuses the credentials fails the mount with its status', async () => {
    const registry = new ToolRegistry();
    await expect(
      mountMcp(registry, { url: notes.url, prefix: 'notes', headers: { Authorization: 'Bearer wrong' } }),
    ).rejects.toThrow(
      'MCP server notes unreachable: HTTP 401: Error POSTing to endpoint: missing or wrong bearer token',
    );
    expect(registry.size).toBe(0);
  });

  it('a custom fetch carries every request', async () => {
    const registry = new ToolRegistry();
    const seen: string[] = [];
    const fetchVia = (input: string | URL, init?: RequestInit) => {
      seen.push(init?.method ?? 'GET');
      return fetch(input, init);
    };
    await mount(registry, { url: notes.url, prefix: 'notes', headers: notesAuth, fetch: fetchVia });
    await registry.dispatch(call('notes__list_notes', {}));
    expect(seen.filter((method) => method === 'POST').length).toBeGreaterThanOrEqual(3); // initialize, initialized, list, call
  });
});

describe('generations', () => {
  it('list_changed re-lists every page and applies add/change/remove as ONE generation change', async () => {
    const server = await startGithubServer();
    try {
      const registry = new ToolRegistry();
      const mounted = await mount(registry, { url: server.url, prefix: 'github' });
      const before = registry.schemas();
      const changes: number[] = [];
      registry.onChange((generation) => changes.push(generation));
      await server.waitForStreams();
      const listed = server.listRequests;

      const changed = nextChange(registry);
      await server.changeTools((tools) => {
        tools.push({
          name: 'list_discussions',
          description: 'List discussions in a repository forum.',
          inputSchema: { type: 'object' },
        });
        const search = tools.find((t) => t.name === 'search_code');
        if (search) search.description = 'Search code in GitHub repositories with qualifiers like repo: and language:.';
        tools.splice(
          tools.findIndex((t) => t.name === 'star_repository'),
          1,
        );
      });
      await changed;
      await sleep(50); // nothing more is coming

      expect(changes).toHaveLength(1);
      expect(server.listRequests - listed).toBe(4);
      expect(registry.has('github__star_repository')).toBe(false);
      expect(registry.get('github__search_code')?.description).toMatch(/qualifiers/);
      expect(registry.schemas().at(-1)?.name).toBe('github__list_discussions');
      expect(mounted.tools).toEqual(registry.schemas().map((tool) => tool.name));
      // Unchanged tools keep their schema objects, so identity-keyed caches survive.
      expect(registry.get('github__create_issue')).toBe(before.find((tool) => tool.name === 'github__create_issue'));
      expect((await registry.dispatch(call('github__list_discussions', { owner: 'o' }))).content).toMatch(
        /^list_discussions ok/,
      );
    } finally {
      await server.close();
    }
  });

  it('refresh() applies a change the server did not announce; a no-op refresh changes nothing', async () => {
    const server = await startGithubServer();
    try {
      const registry = new ToolRegistry();
      const mounted = await mount(registry, { url: server.url, prefix: 'github' });
      const generation = registry.generation;
      await mounted.refresh();
      expect(registry.generation).toBe(generation);
      await server.changeTools((tools) => tools.splice(0, 2), { notify: false });
      await mounted.refresh();
      expect(registry.generation).toBe(generation + 1);
      expect(registry.has('github__list_issues')).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('a new tool whose name another owner took is skipped and reported; the rest still applies', async () => {
    const server = await startGithubServer({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] });
    try {
      const registry = new ToolRegistry();
      registry.register({ name: 'taken', description: 'Local.', parameters: { type: 'object' } }, () => 'local');
      const errors: string[] = [];
      const mounted = await mountMcp(registry, { url: server.url, onError: (error) => errors.push(error.message) });
      mounts.push(mounted);
      await server.changeTools(
        (tools) =>
          tools.push(
            { name: 'taken', inputSchema: { type: 'object' } },
            { name: 'b', inputSchema: { type: 'object' } },
          ),
        {
          notify: false,
        },
      );
      await mounted.refresh();
      expect(errors).toEqual([
        `MCP server 127.0.0.1:${new URL(server.url).port}: skipped new tools whose names are already registered: "taken"`,
      ]);
      expect(mounted.tools).toEqual(['a', 'b']);
      expect((await registry.dispatch(call('taken', {}))).content).toBe('local');
    } finally {
      await server.close();
    }
  });
});

describe('unmount', () => {
  it('removes only its tools in one generation change, ends the session, and is idempotent', async () => {
    const registry = new ToolRegistry();
    const gh = await mount(registry, { url: github.url, prefix: 'github' });
    await mount(registry, { url: notes.url, prefix: 'notes', headers: notesAuth });
    const sessions = github.sessions;
    const changes: number[] = [];
    registry.onChange((generation) => changes.push(generation));

    await gh.unmount();
    expect(changes).toHaveLength(1);
    expect(gh.tools).toEqual([]);
    expect(registry.schemas().every((tool) => tool.name.startsWith('notes__'))).toBe(true);
    expect(registry.size).toBe(20);
    expect(github.http.some((request) => request.method === 'DELETE')).toBe(true);
    expect(github.sessions).toBe(sessions - 1);
    expect(await registry.dispatch(call('github__create_issue', {}))).toMatchObject({
      isError: true,
      content: 'unknown tool "github__create_issue"',
    });

    await gh.unmount();
    await gh.close();
    expect(changes).toHaveLength(1);
  });
});
