/**
 * Real MCP servers for the adapter tests, built with the same SDK the adapter uses, served
 * over Streamable HTTP on node:http (loopback, port 0), one SDK server per session.
 *
 * - `startGithubServer()`: ~30 GitHub-like tools on the low-level `Server`, because it needs
 *   what `McpServer` does not offer: a paginated `tools/list` (page size 8 by default, so four
 *   pages) and a tool-list change that goes out as ONE `notifications/tools/list_changed`
 *   (McpServer sends one per mutation).
 * - `startNotesServer()`: ~20 files/notes tools on the high-level `McpServer` with zod input
 *   schemas; its thrown errors become `isError` results the way McpServer does it.
 *
 * Both record every HTTP request (method, headers) and every tool call (name, arguments,
 * headers, the call's abort signal), can require a bearer token, and can be stopped and
 * restarted on the same port to play a server that goes down.
 *
 * @example
 * const github = await startGithubServer()
 * const mount = await mountMcp(registry, { url: github.url, prefix: 'github' })
 * github.calls[0] // { tool: 'create_issue', args: {...}, headers: {...}, signal }
 * await github.close()
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** One tool call as the server received it. */
export interface RecordedCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** Lower-cased HTTP headers of the request that carried the call. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Aborted when the client cancels the call (or the connection goes). */
  readonly signal: AbortSignal;
}

/** One HTTP request as the server received it. */
export interface RecordedHttp {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly status: number | undefined;
}

/** Replaces a tool's answer for a test. */
export type Behaviour = (args: Record<string, unknown>, call: RecordedCall) => CallToolResult | Promise<CallToolResult>;

/** What both test servers offer. */
export interface McpTestServer {
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly calls: RecordedCall[];
  readonly http: RecordedHttp[];
  /** Live sessions. */
  readonly sessions: number;
  /** Tool names in listing order. */
  toolNames(): string[];
  /** Make a tool answer differently (until `reset`). */
  behave(tool: string, behaviour: Behaviour): void;
  /** Resolves when `count` notification streams (GET) are open; a notification sent earlier is lost. */
  waitForStreams(count?: number): Promise<void>;
  /** Resolves with the next call of `tool`. */
  nextCall(tool: string): Promise<RecordedCall>;
  /** Stop answering: close every connection and the listener (clients get ECONNREFUSED). */
  stop(): Promise<void>;
  /** Listen again on the same port, with no sessions (clients must re-initialize). */
  restart(): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

/** The GitHub-like server, whose tool list can change while clients are connected. */
export interface GithubTestServer extends McpTestServer {
  readonly pageSize: number;
  /** `tools/list` requests served (one per page). */
  readonly listRequests: number;
  /**
   * Edit the tool table, then send one `notifications/tools/list_changed` to every session
   * (unless `notify` is false: a silent change, as a buggy server would make).
   */
  changeTools(edit: (tools: Tool[]) => void, options?: { notify?: boolean }): Promise<void>;
}

export interface TestServerOptions {
  /** Require `Authorization: Bearer <token>` (401 otherwise). */
  readonly token?: string;
}

// ---------------------------------------------------------------------------------------
// The GitHub-like catalogue: JSON Schema, as a real server publishes it.

const str = (description: string) => ({ type: 'string', description });
const int = (description: string) => ({ type: 'integer', description });
const repo = { owner: str('Repository owner (user or organisation)'), repo: str('Repository name') };
const obj = (properties: Record<string, object>, required: string[] = []): Tool['inputSchema'] => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});
const withRepo = (properties: Record<string, object> = {}, required: string[] = []) =>
  obj({ ...repo, ...properties }, ['owner', 'repo', ...required]);

/** Thirty GitHub-like tools (the shape of the public GitHub MCP server's). */
export function githubTools(): Tool[] {
  return [
    {
      name: 'list_issues',
      description: 'List issues in a GitHub repository, filtered by state, labels or assignee.',
      inputSchema: withRepo({
        state: { type: 'string', enum: ['open', 'closed', 'all'] },
        labels: { type: 'array', items: { type: 'string' } },
      }),
    },
    {
      name: 'get_issue',
      description: 'Get the details of one issue in a GitHub repository by its number.',
      inputSchema: withRepo({ issue_number: int('Issue number') }, ['issue_number']),
    },
    {
      name: 'create_issue',
      description: 'Create a new issue in a GitHub repository with a title, body, labels and assignees.',
      inputSchema: withRepo(
        {
          title: str('Issue title'),
          body: str('Issue body (Markdown)'),
          labels: { type: 'array', items: { type: 'string' } },
        },
        ['title'],
      ),
    },
    {
      name: 'update_issue',
      description: 'Update an existing issue: change its title, body, state, labels or assignees.',
      inputSchema: withRepo(
        {
          issue_number: int('Issue number'),
          title: str('New title'),
          state: { type: 'string', enum: ['open', 'closed'] },
        },
        ['issue_number'],
      ),
    },
    {
      name: 'add_issue_comment',
      description: 'Add a comment to an issue or pull request.',
      inputSchema: withRepo({ issue_number: int('Issue or pull request number'), body: str('Comment text') }, [
        'issue_number',
        'body',
      ]),
    },
    {
      name: 'search_issues',
      description: 'Search issues and pull requests across GitHub with the issue search syntax.',
      inputSchema: obj({ q: str('Search query'), sort: str('Sort field') }, ['q']),
    },
    {
      name: 'list_pull_requests',
      description: 'List pull requests in a repository, filtered by state, head or base branch.',
      inputSchema: withRepo({ state: { type: 'string', enum: ['open', 'closed', 'all'] } }),
    },
    {
      name: 'get_pull_request',
      description: 'Get the details of a pull request: title, author, branches, mergeability.',
      inputSchema: withRepo({ pull_number: int('Pull request number') }, ['pull_number']),
    },
    {
      name: 'create_pull_request',
      description: 'Open a new pull request from a head branch into a base branch.',
      inputSchema: withRepo(
        {
          title: str('Title'),
          head: str('Branch with the changes'),
          base: str('Branch to merge into'),
          body: str('Description'),
        },
        ['title', 'head', 'base'],
      ),
    },
    {
      name: 'merge_pull_request',
      description: 'Merge a pull request with a merge commit, squash or rebase.',
      inputSchema: withRepo(
        {
          pull_number: int('Pull request number'),
          merge_method: { type: 'string', enum: ['merge', 'squash', 'rebase'] },
        },
        ['pull_number'],
      ),
    },
    {
      name: 'get_pull_request_diff',
      description: 'Get the unified diff of the changes in a pull request.',
      inputSchema: withRepo({ pull_number: int('Pull request number') }, ['pull_number']),
    },
    {
      name: 'request_reviewers',
      description: 'Request reviews on a pull request from users or teams.',
      inputSchema: withRepo(
        { pull_number: int('Pull request number'), reviewers: { type: 'array', items: { type: 'string' } } },
        ['pull_number', 'reviewers'],
      ),
    },
    {
      name: 'create_pull_request_review',
      description: 'Submit a review on a pull request: approve, request changes or comment.',
      inputSchema: withRepo(
        {
          pull_number: int('Pull request number'),
          event: { type: 'string', enum: ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'] },
          body: str('Review text'),
        },
        ['pull_number', 'event'],
      ),
    },
    {
      name: 'list_commits',
      description: 'List commits on a branch of a repository, newest first.',
      inputSchema: withRepo({ sha: str('Branch name or commit SHA'), per_page: int('Results per page') }),
    },
    {
      name: 'get_commit',
      description: 'Get one commit: message, author, changed files and stats.',
      inputSchema: withRepo({ sha: str('Commit SHA') }, ['sha']),
    },
    {
      name: 'create_branch',
      description: 'Create a new branch in a repository from an existing branch.',
      inputSchema: withRepo({ branch: str('New branch name'), from_branch: str('Source branch') }, ['branch']),
    },
    { name: 'list_branches', description: 'List the branches of a repository.', inputSchema: withRepo() },
    {
      name: 'get_file_contents',
      description: 'Get the contents of a file or directory in a repository at a ref.',
      inputSchema: withRepo({ path: str('Path in the repository'), ref: str('Branch, tag or commit') }, ['path']),
    },
    {
      name: 'create_or_update_file',
      description: 'Create or update a single file in a repository with a commit.',
      inputSchema: withRepo(
        { path: str('Path'), content: str('New file content'), message: str('Commit message'), branch: str('Branch') },
        ['path', 'content', 'message', 'branch'],
      ),
    },
    {
      name: 'delete_file',
      description: 'Delete a file from a repository branch with a commit.',
      inputSchema: withRepo({ path: str('Path'), message: str('Commit message'), branch: str('Branch') }, [
        'path',
        'message',
        'branch',
      ]),
    },
    {
      name: 'search_code',
      description: 'Search source code across GitHub repositories.',
      inputSchema: obj({ q: str('Code search query') }, ['q']),
    },
    {
      name: 'search_repositories',
      description: 'Search GitHub repositories by name, topic, language or stars.',
      inputSchema: obj({ query: str('Repository search query') }, ['query']),
    },
    {
      name: 'create_repository',
      description: 'Create a new GitHub repository in your account or an organisation.',
      inputSchema: obj(
        { name: str('Repository name'), private: { type: 'boolean' }, description: str('Description') },
        ['name'],
      ),
    },
    {
      name: 'fork_repository',
      description: 'Fork a repository to your account or an organisation.',
      inputSchema: withRepo({ organization: str('Organisation to fork into') }),
    },
    { name: 'list_releases', description: 'List the published releases of a repository.', inputSchema: withRepo() },
    {
      name: 'create_release',
      description: 'Create a release from a tag with release notes.',
      inputSchema: withRepo({ tag_name: str('Tag'), name: str('Release title'), body: str('Release notes') }, [
        'tag_name',
      ]),
    },
    {
      name: 'list_workflow_runs',
      description: 'List GitHub Actions workflow runs of a repository, filtered by status or branch.',
      inputSchema: withRepo({ status: str('Run status'), branch: str('Branch') }),
    },
    {
      name: 'rerun_workflow_run',
      description: 'Re-run a GitHub Actions workflow run, or only its failed jobs.',
      inputSchema: withRepo({ run_id: int('Workflow run id'), failed_only: { type: 'boolean' } }, ['run_id']),
    },
    {
      name: 'get_job_logs',
      description: 'Download the logs of a GitHub Actions job to debug a failing build.',
      inputSchema: withRepo({ job_id: int('Job id') }, ['job_id']),
    },
    { name: 'star_repository', description: 'Star a repository for the authenticated user.', inputSchema: withRepo() },
    {
      name: 'run_long_job',
      description: 'Start a long running repository maintenance job and wait for it to finish.',
      inputSchema: withRepo(),
    },
  ];
}

/** The default answers: the arguments echoed back in a line of text. */
function githubAnswer(tool: string, args: Record<string, unknown>): CallToolResult {
  if (tool === 'create_issue') {
    return {
      content: [
        {
          type: 'text',
          text: `Created issue #42 "${String(args.title)}" in ${String(args.owner)}/${String(args.repo)}`,
        },
      ],
    };
  }
  if (tool === 'get_job_logs') {
    return {
      content: [
        { type: 'text', text: 'step 3/7: npm test' },
        { type: 'text', text: 'FAIL test/loop.test.ts' },
      ],
    };
  }
  return { content: [{ type: 'text', text: `${tool} ok: ${JSON.stringify(args)}` }] };
}

/**
 * Start the GitHub-like server.
 *
 * @example
 * const github = await startGithubServer({ pageSize: 8 })
 */
export async function startGithubServer(
  options: TestServerOptions & { pageSize?: number; tools?: Tool[] } = {},
): Promise<GithubTestServer> {
  const pageSize = options.pageSize ?? 8;
  let tools = options.tools ?? githubTools();
  let listRequests = 0;
  const protocols = new Set<Server>();
  const harness = await serveMcp(options, (record) => {
    const server = new Server(
      { name: 'github-test', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      listRequests += 1;
      const start = request.params?.cursor === undefined ? 0 : decodeCursor(request.params.cursor);
      const page = tools.slice(start, start + pageSize);
      const next = start + pageSize < tools.length ? encodeCursor(start + pageSize) : undefined;
      return { tools: page, ...(next ? { nextCursor: next } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args = {} } = request.params;
      if (!tools.some((tool) => tool.name === name))
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const call = record(name, args, extra);
      return harness.answer(call, () => githubAnswer(name, args));
    });
    server.onclose = () => protocols.delete(server);
    protocols.add(server);
    return server;
  });
  return extend(harness.server, {
    pageSize,
    get listRequests() {
      return listRequests;
    },
    toolNames: () => tools.map((tool) => tool.name),
    async changeTools(edit: (tools: Tool[]) => void, { notify = true } = {}) {
      const next = structuredClone(tools);
      edit(next);
      tools = next;
      if (notify) await Promise.all([...protocols].map((server) => server.sendToolListChanged()));
    },
  });
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const offset = (JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { offset?: unknown }).offset;
  if (typeof offset !== 'number') throw new McpError(ErrorCode.InvalidParams, 'bad cursor');
  return offset;
}

// ---------------------------------------------------------------------------------------
// The files/notes catalogue, on McpServer with zod.

interface NotesState {
  files: Map<string, string>;
  notes: Map<string, { title: string; body: string; tags: string[]; pinned: boolean }>;
}

function seedNotes(): NotesState {
  return {
    files: new Map([
      ['README.md', '# Project\nA small agent loop.'],
      ['docs/setup.md', 'Run npm ci, then npm test.'],
    ]),
    notes: new Map([['n1', { title: 'Standup', body: 'Ship the MCP adapter.', tags: ['work'], pinned: false }]]),
  };
}

type NotesHandler = (args: any) => CallToolResult | string;

function notesCatalogue(
  state: NotesState,
): { name: string; description: string; input: z.ZodRawShape; run: NotesHandler }[] {
  const file = (path: string): string => {
    const text = state.files.get(path);
    if (text === undefined) throw new Error(`ENOENT: no such file: ${path}`);
    return text;
  };
  const note = (id: string) => {
    const found = state.notes.get(id);
    if (!found) throw new Error(`no note with id ${id}`);
    return found;
  };
  const path = z.string().describe('File path relative to the workspace root');
  const id = z.string().describe('Note id');
  return [
    {
      name: 'read_file',
      description: 'Read a text file from the workspace and return its contents.',
      input: { path },
      run: ({ path: p }) => file(p),
    },
    {
      name: 'write_file',
      description: 'Write text to a file in the workspace, creating or overwriting it.',
      input: { path, content: z.string() },
      run: ({ path: p, content }) => {
        state.files.set(p, content);
        return `wrote ${content.length} characters to ${p}`;
      },
    },
    {
      name: 'append_file',
      description: 'Append text to the end of a file in the workspace.',
      input: { path, content: z.string() },
      run: ({ path: p, content }) => {
        state.files.set(p, (state.files.get(p) ?? '') + content);
        return `appended to ${p}`;
      },
    },
    {
      name: 'list_directory',
      description: 'List the files and folders inside a workspace directory.',
      input: { path: path.optional() },
      run: ({ path: p = '' }) => [...state.files.keys()].filter((k) => k.startsWith(p)).join('\n'),
    },
    {
      name: 'move_file',
      description: 'Move or rename a file in the workspace.',
      input: { from: z.string(), to: z.string() },
      run: ({ from, to }) => {
        state.files.set(to, file(from));
        state.files.delete(from);
        return `moved ${from} to ${to}`;
      },
    },
    {
      name: 'delete_file',
      description: 'Delete a file from the workspace.',
      input: { path },
      run: ({ path: p }) => {
        file(p);
        state.files.delete(p);
        return `deleted ${p}`;
      },
    },
    {
      name: 'search_files',
      description: 'Search the text of workspace files for a word or phrase.',
      input: { query: z.string() },
      run: ({ query }) =>
        [...state.files]
          .filter(([, t]) => t.includes(query))
          .map(([k]) => k)
          .join('\n') || 'no matches',
    },
    {
      name: 'get_file_info',
      description: 'Get the size and line count of a workspace file.',
      input: { path },
      run: ({ path: p }) => `${file(p).length} bytes, ${file(p).split('\n').length} lines`,
    },
    {
      name: 'create_directory',
      description: 'Create a directory in the workspace.',
      input: { path },
      run: ({ path: p }) => `created ${p}/`,
    },
    {
      name: 'create_note',
      description: 'Create a personal note with a title, body and tags.',
      input: { title: z.string(), body: z.string(), tags: z.array(z.string()).optional() },
      run: ({ title, body, tags = [] }) => {
        state.notes.set(`n${state.notes.size + 1}`, { title, body, tags, pinned: false });
        return `created note n${state.notes.size}`;
      },
    },
    {
      name: 'get_note',
      description: 'Get a note by id with its title, body and tags.',
      input: { id },
      run: ({ id: i }) => JSON.stringify(note(i)),
    },
    {
      name: 'update_note',
      description: 'Update the title or body of a note.',
      input: { id, title: z.string().optional(), body: z.string().optional() },
      run: ({ id: i, ...rest }) => {
        Object.assign(note(i), rest);
        return `updated ${i}`;
      },
    },
    {
      name: 'delete_note',
      description: 'Delete a note by id.',
      input: { id },
      run: ({ id: i }) => {
        note(i);
        state.notes.delete(i);
        return `deleted ${i}`;
      },
    },
    {
      name: 'list_notes',
      description: 'List every note with its id and title.',
      input: {},
      run: () => [...state.notes].map(([k, n]) => `${k}: ${n.title}`).join('\n'),
    },
    {
      name: 'search_notes',
      description: 'Search notes by words in their title or body.',
      input: { query: z.string() },
      run: ({ query }) =>
        [...state.notes]
          .filter(([, n]) => `${n.title} ${n.body}`.includes(query))
          .map(([k]) => k)
          .join('\n') || 'no notes match',
    },
    {
      name: 'tag_note',
      description: 'Add tags to a note.',
      input: { id, tags: z.array(z.string()) },
      run: ({ id: i, tags }) => {
        note(i).tags.push(...tags);
        return `tagged ${i}`;
      },
    },
    {
      name: 'list_tags',
      description: 'List every tag used on notes, with counts.',
      input: {},
      run: () => [...new Set([...state.notes.values()].flatMap((n) => n.tags))].join(', '),
    },
    {
      name: 'pin_note',
      description: 'Pin a note so it shows first.',
      input: { id },
      run: ({ id: i }) => {
        note(i).pinned = true;
        return `pinned ${i}`;
      },
    },
    {
      name: 'export_notes',
      description: 'Export all notes as one Markdown document, attached as a resource.',
      input: {},
      run: () => exportNotes(state),
    },
    {
      name: 'render_diagram',
      description: 'Render a Mermaid diagram of the workspace layout as a PNG image.',
      input: { title: z.string().optional() },
      run: () => renderDiagram(),
    },
  ];
}

function exportNotes(state: NotesState): CallToolResult {
  const markdown = [...state.notes.values()].map((n) => `## ${n.title}\n${n.body}`).join('\n\n');
  return {
    content: [
      { type: 'text', text: `Exported ${state.notes.size} notes.` },
      { type: 'resource', resource: { uri: 'notes://export.md', mimeType: 'text/markdown', text: markdown } },
      { type: 'resource_link', uri: 'notes://archive.zip', name: 'archive.zip' },
    ],
  };
}

function renderDiagram(): CallToolResult {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]).toString('base64');
  return {
    content: [
      { type: 'text', text: 'Diagram rendered.' },
      { type: 'image', data: png, mimeType: 'image/png' },
    ],
  };
}

/**
 * Start the files/notes server (McpServer, not paginated).
 *
 * @example
 * const notes = await startNotesServer({ token: 'notes-secret' })
 */
export async function startNotesServer(
  options: TestServerOptions = {},
): Promise<McpTestServer & { state: NotesState }> {
  const state = seedNotes();
  const catalogue = notesCatalogue(state);
  const harness = await serveMcp(options, (record) => {
    const server = new McpServer({ name: 'notes-test', version: '1.0.0' });
    for (const tool of catalogue) {
      server.registerTool(
        tool.name,
        { description: tool.description, inputSchema: tool.input },
        async (args: Record<string, unknown>, extra) => {
          const call = record(tool.name, args, extra);
          return harness.answer(call, () => {
            const out = tool.run(args);
            return typeof out === 'string' ? { content: [{ type: 'text', text: out }] } : out;
          });
        },
      );
    }
    return server;
  });
  return extend(harness.server, { state, toolNames: () => catalogue.map((tool) => tool.name) });
}

// ---------------------------------------------------------------------------------------
// The HTTP harness: sessions, recording, stop/restart.

interface Connectable {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  close(): Promise<void>;
}

type RecordCall = (
  tool: string,
  args: Record<string, unknown>,
  extra: { signal: AbortSignal; requestInfo?: { headers: Record<string, string | string[] | undefined> } },
) => RecordedCall;

interface Harness {
  readonly server: Omit<McpTestServer, 'toolNames'>;
  answer(call: RecordedCall, fallback: () => CallToolResult): Promise<CallToolResult>;
}

async function serveMcp(options: TestServerOptions, create: (record: RecordCall) => Connectable): Promise<Harness> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; protocol: Connectable }>();
  const calls: RecordedCall[] = [];
  const http: RecordedHttp[] = [];
  const streams: ServerResponse[] = [];
  const behaviours = new Map<string, Behaviour>();
  const callWaiters: { tool: string; resolve: (call: RecordedCall) => void }[] = [];

  const record: RecordCall = (tool, args, extra) => {
    const call: RecordedCall = { tool, args, headers: { ...extra.requestInfo?.headers }, signal: extra.signal };
    calls.push(call);
    for (const waiter of callWaiters.filter((w) => w.tool === tool)) {
      callWaiters.splice(callWaiters.indexOf(waiter), 1);
      waiter.resolve(call);
    }
    return call;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const entry = { method: req.method ?? '', headers: { ...req.headers }, status: undefined as number | undefined };
    http.push(entry);
    res.on('finish', () => (entry.status = res.statusCode));
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`)
      return reply(res, 401, 'missing or wrong bearer token');
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return reply(res, 404, 'not found');
    const sessionId = header(req, 'mcp-session-id');
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && !session) return reply(res, 404, 'Session not found');
    if (session) {
      if (req.method === 'GET') streams.push(res);
      return session.transport.handleRequest(req, res);
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (!isInitializeRequest(body)) return reply(res, 400, 'Bad Request: no valid session');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, protocol }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const protocol = create(record);
    await protocol.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const listener: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, String(error));
      else res.destroy();
    });
  });
  await listen(listener, 0);
  const port = (listener.address() as AddressInfo).port;
  let running = true;

  const dropSessions = async (): Promise<void> => {
    const all = [...sessions.values()];
    sessions.clear();
    await Promise.all(all.map(({ protocol }) => protocol.close().catch(() => undefined)));
  };

  const server: Harness['server'] = {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    http,
    get sessions() {
      return sessions.size;
    },
    behave: (tool, behaviour) => void behaviours.set(tool, behaviour),
    async waitForStreams(count = 1) {
      // A stream counts once its response headers are out: the transport is writing to it.
      while (streams.filter((res) => res.headersSent && !res.writableEnded).length < count) await sleep(5);
    },
    nextCall: (tool) => new Promise((resolve) => callWaiters.push({ tool, resolve })),
    async stop() {
      if (!running) return;
      running = false;
      listener.closeAllConnections();
      await Promise.all([new Promise((resolve) => listener.close(resolve)), dropSessions()]);
      streams.length = 0;
    },
    async restart() {
      if (running) return;
      await listen(listener, port);
      running = true;
    },
    reset() {
      calls.length = 0;
      http.length = 0;
      behaviours.clear();
    },
    async close() {
      await server.stop();
    },
  };
  return {
    server,
    async answer(call, fallback) {
      const behaviour = behaviours.get(call.tool);
      return behaviour ? behaviour(call.args, call) : fallback();
    },
  };
}

/** Object.assign that copies getters as getters (live counters stay live). */
function extend<T extends object, U extends object>(target: T, extra: U): T & U {
  return Object.defineProperties(target, Object.getOwnPropertyDescriptors(extra)) as T & U;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function listen(server: HttpServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Wait `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise that resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
