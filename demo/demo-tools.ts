/**
 * A realistic assistant tool surface for the demo worker and the browser demo: files, git,
 * code hosting, chat, email, calendar, web, databases, cloud, weather, maps, notes, tasks,
 * translation, math and a few utilities. Every handler is offline and deterministic (canned
 * but plausible results derived from the arguments), so runs are reproducible and no demo
 * ever touches the network.
 */
import type { ToolEntry, ToolRegistry } from '../src/registry/registry.js';
import type { JsonSchema, ToolSchema } from '../src/registry/schema.js';

// biome-ignore lint/suspicious/noExplicitAny: handlers read arguments the registry already validated against each tool's schema
type Args = Record<string, any>;
type Handler = (args: Args) => unknown;

// ---------------------------------------------------------------------------------------
// Schema helpers: keep each tool definition one readable block.

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
const num = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', description, ...extra });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
const oneOf = (description: string, values: readonly string[]): JsonSchema => ({
  type: 'string',
  enum: [...values],
  description,
});
const list = (description: string, items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  type: 'array',
  items,
  description,
  ...extra,
});

function object(properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required.length ? { required: [...required] } : {}),
    additionalProperties: false,
  };
}

// ---------------------------------------------------------------------------------------
// Deterministic "data": everything is derived from a hash of the arguments.

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A stable number in [min, max] for this text. */
function pick(text: string, min: number, max: number): number {
  return min + (hash(text) % (max - min + 1));
}

function choose<T>(text: string, options: readonly T[]): T {
  return options[hash(text) % options.length] as T;
}

const FIXED_NOW = '2025-06-02T09:30:00Z';
const hex = (text: string, length = 7): string => hash(text).toString(16).padStart(8, '0').slice(0, length);

// ---------------------------------------------------------------------------------------
// The tools.

const FILES: Record<string, string> = {
  'README.md': '# acme-api\n\nHTTP API for the Acme store. Run `npm start` and open http://localhost:3000.\n',
  'package.json':
    '{\n  "name": "acme-api",\n  "version": "2.4.1",\n  "scripts": { "start": "node server.js", "test": "vitest" }\n}\n',
  'src/server.ts':
    "import { Hono } from 'hono'\nconst app = new Hono()\napp.get('/health', (c) => c.text('ok'))\nexport default app\n",
  'src/orders.ts':
    'export function totalCents(items: { price: number; qty: number }[]) {\n  return items.reduce((sum, i) => sum + i.price * i.qty, 0)\n}\n',
  'docs/deploy.md':
    '# Deploying\n\n1. Merge to main.\n2. CI builds the image.\n3. Run `deploy_service` for staging, then production.\n',
};

const WEATHER = [
  'clear',
  'partly cloudy',
  'overcast',
  'light rain',
  'showers',
  'snow',
  'fog',
  'thunderstorms',
] as const;

interface Demo {
  name: string;
  description: string;
  parameters: JsonSchema;
  handler: Handler;
}

const tools: Demo[] = [
  // Files
  {
    name: 'read_file',
    description: 'Read a text file from the workspace and return its contents. Use to open, view or show a file.',
    parameters: object(
      {
        path: str('Path relative to the workspace root, e.g. "src/server.ts".'),
        maxLines: int('Stop after this many lines.', { minimum: 1 }),
      },
      ['path'],
    ),
    handler: ({ path, maxLines }) => {
      const text = FILES[path];
      if (text === undefined) throw new Error(`no such file: ${path}`);
      return maxLines ? text.split('\n').slice(0, maxLines).join('\n') : text;
    },
  },
  {
    name: 'write_file',
    description: 'Create or overwrite a text file in the workspace with the given content.',
    parameters: object(
      {
        path: str('Path relative to the workspace root.'),
        content: str('The full new file content.'),
        createDirectories: bool('Create missing parent folders.'),
      },
      ['path', 'content'],
    ),
    handler: ({ path, content }) => ({
      path,
      bytesWritten: new TextEncoder().encode(content).length,
      created: !(path in FILES),
    }),
  },
  {
    name: 'edit_file',
    description:
      'Change part of an existing file by replacing an exact snippet of text with new text. Use to fix or modify code.',
    parameters: object(
      {
        path: str('File to edit.'),
        find: str('Exact text to replace (must occur once).'),
        replace: str('Replacement text.'),
      },
      ['path', 'find', 'replace'],
    ),
    handler: ({ path, find }) => {
      const text = FILES[path];
      if (text === undefined) throw new Error(`no such file: ${path}`);
      if (!text.includes(find)) throw new Error(`the snippet was not found in ${path}`);
      return { path, replacements: 1 };
    },
  },
  {
    name: 'list_directory',
    description: 'List the files and folders inside a workspace directory.',
    parameters: object({ path: str('Directory path; "." for the root.'), recursive: bool('Include nested folders.') }, [
      'path',
    ]),
    handler: ({ path, recursive }) => {
      const prefix = path === '.' || path === '' ? '' : `${String(path).replace(/\/+$/, '')}/`;
      const names = Object.keys(FILES)
        .filter((name) => name.startsWith(prefix))
        .map((name) => name.slice(prefix.length));
      return recursive
        ? names
        : [...new Set(names.map((name) => (name.includes('/') ? `${name.split('/')[0]}/` : name)))];
    },
  },
  {
    name: 'grep_files',
    description:
      'Search file contents in the workspace for a text pattern or regular expression and return matching lines.',
    parameters: object(
      {
        pattern: str('Text or regular expression to look for.'),
        path: str('Limit the search to this folder.'),
        ignoreCase: bool('Match case-insensitively.'),
      },
      ['pattern'],
    ),
    handler: ({ pattern, path, ignoreCase }) => {
      const needle = String(pattern);
      const matches: string[] = [];
      for (const [file, text] of Object.entries(FILES)) {
        if (path && !file.startsWith(path)) continue;
        text.split('\n').forEach((line, i) => {
          const hit = ignoreCase ? line.toLowerCase().includes(needle.toLowerCase()) : line.includes(needle);
          if (hit) matches.push(`${file}:${i + 1}: ${line}`);
        });
      }
      return matches.length ? matches.join('\n') : 'no matches';
    },
  },
  {
    name: 'move_file',
    description: 'Move or rename a file or folder in the workspace.',
    parameters: object({ from: str('Current path.'), to: str('New path.') }, ['from', 'to']),
    handler: ({ from, to }) => ({ moved: true, from, to }),
  },
  {
    name: 'delete_file',
    description: 'Delete a file from the workspace. This cannot be undone.',
    parameters: object({ path: str('File to delete.') }, ['path']),
    handler: ({ path }) => ({ deleted: path in FILES, path }),
  },

  // Git
  {
    name: 'git_status',
    description: 'Show the git working tree status: current branch, staged, modified and untracked files.',
    parameters: object({}),
    handler: () => ({
      branch: 'feature/checkout-totals',
      ahead: 2,
      staged: ['src/orders.ts'],
      modified: ['README.md'],
      untracked: ['notes.txt'],
    }),
  },
  {
    name: 'git_diff',
    description: 'Show the git diff of uncommitted changes, or between two refs.',
    parameters: object({
      from: str('Base ref, e.g. "main".'),
      to: str('Target ref; default the working tree.'),
      path: str('Limit to one path.'),
    }),
    handler: ({ path }) =>
      `diff --git a/${path ?? 'src/orders.ts'} b/${path ?? 'src/orders.ts'}\n@@ -1,3 +1,3 @@\n-  return items.reduce((sum, i) => sum + i.price, 0)\n+  return items.reduce((sum, i) => sum + i.price * i.qty, 0)\n`,
  },
  {
    name: 'git_log',
    description: 'Show recent git commits with hash, author, date and message.',
    parameters: object({
      limit: int('How many commits.', { minimum: 1, maximum: 100 }),
      author: str('Only commits by this author.'),
      path: str('Only commits touching this path.'),
    }),
    handler: ({ limit = 5, author }) =>
      Array.from({ length: Math.min(limit, 5) }, (_, i) => ({
        hash: hex(`commit${i}`),
        author: author ?? choose(`a${i}`, ['ana', 'bjorn', 'chen', 'dara']),
        date: `2025-05-${String(30 - i).padStart(2, '0')}`,
        message: [
          'Fix order totals for multi-quantity items',
          'Add health endpoint',
          'Bump hono',
          'Document deploys',
          'Initial commit',
        ][i],
      })),
  },
  {
    name: 'git_commit',
    description: 'Commit the staged changes to the current git branch with a message.',
    parameters: object({ message: str('Commit message.'), all: bool('Stage every modified file first.') }, ['message']),
    handler: ({ message }) => ({ hash: hex(message), branch: 'feature/checkout-totals', message }),
  },
  {
    name: 'git_create_branch',
    description: 'Create a new git branch from a base ref and switch to it.',
    parameters: object({ name: str('New branch name.'), from: str('Base ref; default the current branch.') }, ['name']),
    handler: ({ name, from }) => ({ branch: name, from: from ?? 'main', switched: true }),
  },

  // Code hosting
  {
    name: 'list_issues',
    description: 'List issues in a code hosting repository, filtered by state, label or assignee.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        state: oneOf('Issue state.', ['open', 'closed', 'all']),
        label: str('Only issues with this label.'),
        assignee: str('Only issues assigned to this user.'),
      },
      ['repo'],
    ),
    handler: ({ repo, state = 'open' }) => [
      { number: 412, title: 'Checkout total ignores quantity', state, labels: ['bug'], repo },
      { number: 409, title: 'Add rate limiting to /orders', state, labels: ['enhancement'], repo },
      { number: 401, title: 'Flaky test in payments suite', state, labels: ['ci'], repo },
    ],
  },
  {
    name: 'create_issue',
    description: 'Open a new issue (bug report or feature request) in a code hosting repository.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        title: str('Issue title.'),
        body: str('Issue description in Markdown.'),
        labels: list('Labels to apply.', { type: 'string' }),
      },
      ['repo', 'title'],
    ),
    handler: ({ repo, title }) => ({
      number: pick(title, 413, 499),
      url: `https://git.example.com/${repo}/issues/${pick(title, 413, 499)}`,
      title,
    }),
  },
  {
    name: 'comment_on_issue',
    description: 'Add a comment to an issue or pull request.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        number: int('Issue or pull request number.', { minimum: 1 }),
        body: str('Comment text in Markdown.'),
      },
      ['repo', 'number', 'body'],
    ),
    handler: ({ repo, number }) => ({ commentId: pick(`${repo}${number}`, 10000, 99999), number }),
  },
  {
    name: 'close_issue',
    description: 'Close an issue, optionally with a reason.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        number: int('Issue number.', { minimum: 1 }),
        reason: oneOf('Why it is closed.', ['completed', 'not_planned', 'duplicate']),
      },
      ['repo', 'number'],
    ),
    handler: ({ number, reason = 'completed' }) => ({ number, state: 'closed', reason }),
  },
  {
    name: 'list_pull_requests',
    description: 'List pull requests in a repository with their status, author and review state.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        state: oneOf('Pull request state.', ['open', 'closed', 'merged', 'all']),
        author: str('Only pull requests by this user.'),
      },
      ['repo'],
    ),
    handler: ({ state = 'open' }) => [
      { number: 415, title: 'Fix checkout totals', author: 'ana', state, checks: 'passing', reviews: 'approved' },
      {
        number: 414,
        title: 'Rate limit /orders',
        author: 'chen',
        state,
        checks: 'failing',
        reviews: 'changes requested',
      },
    ],
  },
  {
    name: 'get_pull_request',
    description: 'Get one pull request: description, changed files, CI checks and review comments.',
    parameters: object(
      { repo: str('Repository as owner/name.'), number: int('Pull request number.', { minimum: 1 }) },
      ['repo', 'number'],
    ),
    handler: ({ number }) => ({
      number,
      title: 'Fix checkout totals',
      files: ['src/orders.ts', 'test/orders.test.ts'],
      additions: 14,
      deletions: 3,
      checks: 'passing',
      mergeable: true,
    }),
  },
  {
    name: 'create_pull_request',
    description: 'Open a pull request to merge a branch into a base branch.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        head: str('Branch with the changes.'),
        base: str('Branch to merge into, e.g. "main".'),
        title: str('Title.'),
        body: str('Description in Markdown.'),
        draft: bool('Open as a draft.'),
      },
      ['repo', 'head', 'title'],
    ),
    handler: ({ repo, title }) => ({
      number: pick(title, 416, 499),
      url: `https://git.example.com/${repo}/pull/${pick(title, 416, 499)}`,
    }),
  },
  {
    name: 'merge_pull_request',
    description: 'Merge an approved pull request with a merge, squash or rebase strategy.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        number: int('Pull request number.', { minimum: 1 }),
        method: oneOf('Merge strategy.', ['merge', 'squash', 'rebase']),
      },
      ['repo', 'number'],
    ),
    handler: ({ number, method = 'squash' }) => ({ number, merged: true, method, sha: hex(`merge${number}`) }),
  },
  {
    name: 'request_review',
    description: 'Ask one or more people to review a pull request.',
    parameters: object(
      {
        repo: str('Repository as owner/name.'),
        number: int('Pull request number.', { minimum: 1 }),
        reviewers: list('Usernames.', { type: 'string' }, { minItems: 1 }),
      },
      ['repo', 'number', 'reviewers'],
    ),
    handler: ({ number, reviewers }) => ({ number, requested: reviewers }),
  },

  // Chat
  {
    name: 'send_chat_message',
    description: 'Post a message to a team chat channel or send a direct message to a colleague.',
    parameters: object(
      {
        channel: str('Channel name like "#deploys" or a username for a direct message.'),
        text: str('Message text (Markdown allowed).'),
        threadId: str('Reply in this thread.'),
      },
      ['channel', 'text'],
    ),
    handler: ({ channel, text }) => ({ channel, messageId: hex(`${channel}${text}`, 10), postedAt: FIXED_NOW }),
  },
  {
    name: 'read_chat_history',
    description: 'Read the latest messages from a team chat channel or thread.',
    parameters: object(
      { channel: str('Channel name or username.'), limit: int('How many messages.', { minimum: 1, maximum: 200 }) },
      ['channel'],
    ),
    handler: ({ channel }) => [
      { from: 'dara', at: '09:02', text: `Morning ${channel}! Staging deploy is green.` },
      { from: 'bjorn', at: '09:14', text: 'Can someone review #415 before standup?' },
      { from: 'chen', at: '09:21', text: 'Looking now.' },
    ],
  },
  {
    name: 'list_chat_channels',
    description: 'List the team chat channels you belong to, with unread counts.',
    parameters: object({ unreadOnly: bool('Only channels with unread messages.') }),
    handler: () => [
      { channel: '#general', unread: 3 },
      { channel: '#deploys', unread: 1 },
      { channel: '#incidents', unread: 0 },
    ],
  },
  {
    name: 'set_chat_status',
    description: 'Set your chat presence status and status message (e.g. in a meeting, on vacation).',
    parameters: object(
      {
        text: str('Status message.'),
        emoji: str('Status emoji, e.g. ":palm_tree:".'),
        expiresInMinutes: int('Clear it after this long.', { minimum: 1 }),
      },
      ['text'],
    ),
    handler: ({ text, emoji }) => ({ status: text, emoji: emoji ?? ':speech_balloon:' }),
  },

  // Email
  {
    name: 'send_email',
    description: 'Send an email to one or more recipients with a subject and body.',
    parameters: object(
      {
        to: list('Recipient addresses.', { type: 'string', format: 'email' }, { minItems: 1 }),
        cc: list('Copy addresses.', { type: 'string' }),
        subject: str('Subject line.'),
        body: str('Plain-text body.'),
      },
      ['to', 'subject', 'body'],
    ),
    handler: ({ to, subject }) => ({
      sent: true,
      messageId: `<${hex(subject, 8)}@mail.example.com>`,
      recipients: to.length,
    }),
  },
  {
    name: 'search_email',
    description: 'Search the mailbox for emails by sender, subject words, date range or unread state.',
    parameters: object({
      query: str('Words to look for in subject or body.'),
      from: str('Sender address or name.'),
      after: str('Only emails after this date (YYYY-MM-DD).', { format: 'date' }),
      unreadOnly: bool('Only unread emails.'),
    }),
    handler: ({ query = '', from }) => [
      {
        id: hex(`m1${query}`),
        from: from ?? 'billing@vendor.example',
        subject: 'Your May invoice',
        date: '2025-06-01',
        unread: true,
      },
      {
        id: hex(`m2${query}`),
        from: from ?? 'ana@acme.example',
        subject: 'Re: checkout bug',
        date: '2025-05-31',
        unread: false,
      },
    ],
  },
  {
    name: 'read_email',
    description: 'Open one email by id and return its sender, recipients, subject and full body.',
    parameters: object({ id: str('Email id from search_email.') }, ['id']),
    handler: ({ id }) => ({
      id,
      from: 'ana@acme.example',
      to: ['you@acme.example'],
      subject: 'Re: checkout bug',
      body: 'I can reproduce it with two items of the same SKU. Patch incoming.',
    }),
  },
  {
    name: 'reply_to_email',
    description: 'Reply to an email thread, optionally replying to all recipients.',
    parameters: object(
      { id: str('Email id to answer.'), body: str('Reply text.'), replyAll: bool('Include every recipient.') },
      ['id', 'body'],
    ),
    handler: ({ id, replyAll }) => ({ sent: true, inReplyTo: id, replyAll: Boolean(replyAll) }),
  },

  // Calendar
  {
    name: 'list_calendar_events',
    description: 'List calendar events and meetings between two dates.',
    parameters: object(
      {
        start: str('Start date (YYYY-MM-DD).', { format: 'date' }),
        end: str('End date (YYYY-MM-DD).', { format: 'date' }),
        calendar: str('Calendar name; default your primary calendar.'),
      },
      ['start'],
    ),
    handler: ({ start }) => [
      { id: 'evt_1', title: 'Standup', start: `${start}T09:45`, end: `${start}T10:00` },
      { id: 'evt_2', title: 'Design review', start: `${start}T14:00`, end: `${start}T15:00` },
    ],
  },
  {
    name: 'create_calendar_event',
    description: 'Schedule a calendar event or meeting with a title, time, duration and attendees.',
    parameters: object(
      {
        title: str('Event title.'),
        start: str('Start time, ISO 8601.', { format: 'date-time' }),
        durationMinutes: int('Length in minutes.', { minimum: 5, maximum: 1440 }),
        attendees: list('Attendee emails.', { type: 'string' }),
        location: str('Room or video link.'),
      },
      ['title', 'start'],
    ),
    handler: ({ title, start, durationMinutes = 30 }) => ({
      id: `evt_${hex(title, 6)}`,
      title,
      start,
      durationMinutes,
      invitesSent: true,
    }),
  },
  {
    name: 'find_free_time',
    description: 'Find time slots when all the given people are free for a meeting.',
    parameters: object(
      {
        attendees: list('Emails of the people to meet.', { type: 'string' }, { minItems: 1 }),
        durationMinutes: int('Meeting length.', { minimum: 5 }),
        withinDays: int('Look this many days ahead.', { minimum: 1, maximum: 30 }),
      },
      ['attendees', 'durationMinutes'],
    ),
    handler: ({ durationMinutes }) => [
      { start: '2025-06-03T10:30', durationMinutes },
      { start: '2025-06-03T15:00', durationMinutes },
      { start: '2025-06-04T11:00', durationMinutes },
    ],
  },
  {
    name: 'cancel_calendar_event',
    description: 'Cancel a calendar event and notify its attendees.',
    parameters: object({ id: str('Event id.'), message: str('Note sent to attendees.') }, ['id']),
    handler: ({ id }) => ({ id, cancelled: true }),
  },

  // Web
  {
    name: 'web_search',
    description:
      'Search the web for pages matching a query and return titles, links and snippets. Use to look up current information.',
    parameters: object({ query: str('Search terms.'), limit: int('Number of results.', { minimum: 1, maximum: 20 }) }, [
      'query',
    ]),
    handler: ({ query, limit = 3 }) =>
      Array.from({ length: Math.min(limit, 3) }, (_, i) => ({
        title: `${query} — ${['overview', 'guide', 'discussion'][i]}`,
        url: `https://${['en.wikipedia.org/wiki', 'docs.example.org', 'forum.example.net/t'][i]}/${encodeURIComponent(String(query).replace(/\s+/g, '_'))}`,
        snippet: `A ${['summary', 'step-by-step guide', 'community thread'][i]} about ${query}.`,
      })),
  },
  {
    name: 'fetch_url',
    description: 'Download a web page or API URL and return its readable text content.',
    parameters: object(
      {
        url: str('Absolute http(s) URL.', { format: 'uri' }),
        maxChars: int('Truncate the text to this length.', { minimum: 100 }),
      },
      ['url'],
    ),
    handler: ({ url }) => {
      const host = /^https?:\/\/([^/]+)/.exec(String(url))?.[1];
      // A deterministic failure, so demos and tests can show a failing tool mid-run.
      if (!host || host.endsWith('.invalid')) throw new Error(`could not resolve host for ${url}`);
      return `Title: ${host}\n\nThis is the readable text of ${url}. It was fetched at ${FIXED_NOW}.`;
    },
  },

  // Databases
  {
    name: 'run_sql_query',
    description: 'Run a read-only SQL query against the analytics database and return the result rows.',
    parameters: object(
      {
        sql: str('A single SELECT statement.'),
        database: oneOf('Which database.', ['analytics', 'orders', 'users']),
        limit: int('Maximum rows.', { minimum: 1, maximum: 1000 }),
      },
      ['sql'],
    ),
    handler: ({ sql }) => {
      if (!/^\s*(select|with)\b/i.test(String(sql))) throw new Error('only read-only SELECT queries are allowed');
      return {
        columns: ['day', 'orders', 'revenue_cents'],
        rows: [
          ['2025-05-30', 182, 1_204_500],
          ['2025-05-31', 201, 1_388_200],
          ['2025-06-01', 143, 967_300],
        ],
      };
    },
  },
  {
    name: 'describe_table',
    description: 'Show the schema of a database table: columns, types, indexes and row count.',
    parameters: object(
      { table: str('Table name.'), database: oneOf('Which database.', ['analytics', 'orders', 'users']) },
      ['table'],
    ),
    handler: ({ table }) => ({
      table,
      rows: pick(table, 1000, 900000),
      columns: [
        { name: 'id', type: 'bigint', primaryKey: true },
        { name: 'created_at', type: 'timestamptz' },
        { name: 'status', type: 'text' },
      ],
    }),
  },
  {
    name: 'list_tables',
    description: 'List the tables in a database.',
    parameters: object({ database: oneOf('Which database.', ['analytics', 'orders', 'users']) }),
    handler: ({ database = 'orders' }) => ({ database, tables: ['orders', 'order_items', 'customers', 'refunds'] }),
  },

  // Cloud
  {
    name: 'deploy_service',
    description: 'Deploy a service version to an environment (staging or production) on the cloud platform.',
    parameters: object(
      {
        service: str('Service name.'),
        environment: oneOf('Target environment.', ['staging', 'production']),
        version: str('Image tag or git sha; default the latest build.'),
      },
      ['service', 'environment'],
    ),
    handler: ({ service, environment, version }) => ({
      service,
      environment,
      version: version ?? hex(service),
      deploymentId: `dep_${hex(`${service}${environment}`, 8)}`,
      status: 'rolling out',
    }),
  },
  {
    name: 'rollback_deployment',
    description: 'Roll a service back to its previous deployment in an environment.',
    parameters: object(
      { service: str('Service name.'), environment: oneOf('Environment.', ['staging', 'production']) },
      ['service', 'environment'],
    ),
    handler: ({ service, environment }) => ({
      service,
      environment,
      rolledBackTo: hex(`${service}prev`),
      status: 'complete',
    }),
  },
  {
    name: 'get_service_logs',
    description: 'Fetch recent log lines from a running cloud service, filtered by level or text.',
    parameters: object(
      {
        service: str('Service name.'),
        environment: oneOf('Environment.', ['staging', 'production']),
        level: oneOf('Minimum level.', ['debug', 'info', 'warn', 'error']),
        since: str('How far back, e.g. "15m" or "2h".'),
        contains: str('Only lines containing this text.'),
      },
      ['service'],
    ),
    handler: ({ service }) =>
      [
        `2025-06-02T09:12:03Z INFO  ${service} listening on :8080`,
        `2025-06-02T09:17:44Z WARN  ${service} slow query (812 ms) on orders`,
        `2025-06-02T09:18:02Z ERROR ${service} upstream payments timed out after 5000 ms`,
      ].join('\n'),
  },
  {
    name: 'get_service_metrics',
    description: 'Get CPU, memory, request rate, error rate and latency percentiles for a cloud service.',
    parameters: object({ service: str('Service name.'), window: oneOf('Time window.', ['5m', '1h', '24h']) }, [
      'service',
    ]),
    handler: ({ service, window = '1h' }) => ({
      service,
      window,
      cpuPercent: pick(service, 12, 78),
      memoryMb: pick(`${service}m`, 180, 900),
      rps: pick(`${service}r`, 20, 400),
      errorRate: 0.004,
      p50Ms: 38,
      p99Ms: 412,
    }),
  },
  {
    name: 'list_storage_buckets',
    description: 'List object storage buckets with their region and size.',
    parameters: object({ region: str('Only buckets in this region.') }),
    handler: () => [
      { bucket: 'acme-assets', region: 'eu-west', sizeGb: 41.2 },
      { bucket: 'acme-backups', region: 'eu-north', sizeGb: 388.0 },
    ],
  },
  {
    name: 'upload_to_bucket',
    description: 'Upload a workspace file to an object storage bucket and return its public URL.',
    parameters: object(
      {
        bucket: str('Bucket name.'),
        path: str('Workspace file to upload.'),
        key: str('Object key; default the file name.'),
        public: bool('Make the object publicly readable.'),
      },
      ['bucket', 'path'],
    ),
    handler: ({ bucket, path, key }) => ({
      bucket,
      key: key ?? path,
      url: `https://${bucket}.storage.example.com/${key ?? path}`,
      etag: hex(path, 8),
    }),
  },

  // Weather
  {
    name: 'get_current_weather',
    description: 'Current weather for a city: temperature, conditions, wind and humidity.',
    parameters: object(
      {
        city: str('City name, optionally with country, e.g. "Oslo, NO".'),
        units: oneOf('Unit system.', ['metric', 'imperial']),
      },
      ['city'],
    ),
    handler: ({ city, units = 'metric' }) => {
      const c = pick(`${city}t`, -5, 31);
      return {
        city,
        conditions: choose(city, WEATHER),
        temperature: units === 'imperial' ? Math.round((c * 9) / 5 + 32) : c,
        units,
        windKph: pick(`${city}w`, 0, 45),
        humidity: pick(`${city}h`, 30, 95),
      };
    },
  },
  {
    name: 'get_weather_forecast',
    description: 'Daily weather forecast for a city for the next few days: highs, lows and chance of rain.',
    parameters: object({ city: str('City name.'), days: int('Number of days.', { minimum: 1, maximum: 10 }) }, [
      'city',
    ]),
    handler: ({ city, days = 3 }) =>
      Array.from({ length: days }, (_, i) => ({
        date: `2025-06-${String(2 + i).padStart(2, '0')}`,
        conditions: choose(`${city}${i}`, WEATHER),
        highC: pick(`${city}${i}h`, 8, 30),
        lowC: pick(`${city}${i}l`, -2, 12),
        rainChance: pick(`${city}${i}r`, 0, 100) / 100,
      })),
  },

  // Maps
  {
    name: 'geocode_address',
    description: 'Convert a street address or place name into latitude and longitude coordinates.',
    parameters: object({ address: str('Address or place name.') }, ['address']),
    handler: ({ address }) => ({
      address,
      lat: pick(`${address}lat`, -60_000, 70_000) / 1000,
      lon: pick(`${address}lon`, -170_000, 170_000) / 1000,
    }),
  },
  {
    name: 'get_directions',
    description:
      'Get route directions between two places by car, bike, transit or on foot, with distance and travel time.',
    parameters: object(
      {
        from: str('Start address.'),
        to: str('Destination address.'),
        mode: oneOf('How to travel.', ['driving', 'cycling', 'transit', 'walking']),
      },
      ['from', 'to'],
    ),
    handler: ({ from, to, mode = 'driving' }) => ({
      from,
      to,
      mode,
      distanceKm: pick(`${from}${to}`, 2, 80),
      durationMinutes: pick(`${from}${to}${mode}`, 6, 140),
      steps: [`Head north from ${from}`, 'Continue on the main road', `Arrive at ${to}`],
    }),
  },
  {
    name: 'find_nearby_places',
    description: 'Find places near a location: restaurants, cafes, pharmacies, parking and so on.',
    parameters: object(
      {
        near: str('Address or "lat,lon".'),
        category: str('Kind of place, e.g. "coffee".'),
        radiusMeters: int('Search radius.', { minimum: 50, maximum: 50000 }),
      },
      ['near', 'category'],
    ),
    handler: ({ category }) => [
      {
        name: `${String(category).replace(/^\w/, (ch: string) => ch.toUpperCase())} Corner`,
        distanceM: 180,
        rating: 4.5,
      },
      { name: `The ${category} House`, distanceM: 420, rating: 4.2 },
    ],
  },

  // Notes
  {
    name: 'create_note',
    description: 'Save a new note with a title, Markdown body and tags.',
    parameters: object(
      { title: str('Note title.'), body: str('Note content in Markdown.'), tags: list('Tags.', { type: 'string' }) },
      ['title', 'body'],
    ),
    handler: ({ title }) => ({ id: `note_${hex(title, 6)}`, title, savedAt: FIXED_NOW }),
  },
  {
    name: 'search_notes',
    description: 'Search your saved notes by words or tag.',
    parameters: object({ query: str('Words to look for.'), tag: str('Only notes with this tag.') }),
    handler: ({ query = '' }) => [
      { id: `note_${hex(query, 6)}`, title: `Meeting notes: ${query || 'weekly sync'}`, updated: '2025-05-28' },
    ],
  },

  // Tasks
  {
    name: 'create_task',
    description: 'Add a task or to-do item with an optional due date, priority and project.',
    parameters: object(
      {
        title: str('What needs doing.'),
        due: str('Due date (YYYY-MM-DD).', { format: 'date' }),
        priority: oneOf('Priority.', ['low', 'medium', 'high']),
        project: str('Project name.'),
      },
      ['title'],
    ),
    handler: ({ title, priority = 'medium' }) => ({ id: `task_${hex(title, 6)}`, title, priority, done: false }),
  },
  {
    name: 'list_tasks',
    description: 'List your open tasks and to-dos, optionally for one project or due before a date.',
    parameters: object({
      project: str('Only this project.'),
      dueBefore: str('Only tasks due before this date.', { format: 'date' }),
      includeDone: bool('Include completed tasks.'),
    }),
    handler: () => [
      { id: 'task_a1', title: 'Review PR #415', due: '2025-06-02', priority: 'high' },
      { id: 'task_b2', title: 'Renew TLS certificate', due: '2025-06-06', priority: 'medium' },
    ],
  },
  {
    name: 'complete_task',
    description: 'Mark a task or to-do item as done.',
    parameters: object({ id: str('Task id.') }, ['id']),
    handler: ({ id }) => ({ id, done: true, completedAt: FIXED_NOW }),
  },

  // Language
  {
    name: 'translate_text',
    description: 'Translate text from one language into another language.',
    parameters: object(
      {
        text: str('Text to translate.'),
        to: str('Target language code, e.g. "fr".'),
        from: str('Source language code; detected when omitted.'),
      },
      ['text', 'to'],
    ),
    handler: ({ text, to, from }) => ({ from: from ?? 'en', to, translation: `[${to}] ${text}` }),
  },
  {
    name: 'detect_language',
    description: 'Detect which language a piece of text is written in.',
    parameters: object({ text: str('Text to identify.') }, ['text']),
    handler: ({ text }) => ({ language: choose(text, ['en', 'de', 'fr', 'es', 'nb']), confidence: 0.97 }),
  },
  {
    name: 'summarize_text',
    description: 'Summarise a long text into a few sentences or bullet points.',
    parameters: object(
      {
        text: str('Text to summarise.'),
        style: oneOf('Summary style.', ['sentences', 'bullets']),
        maxWords: int('Length limit.', { minimum: 10 }),
      },
      ['text'],
    ),
    handler: ({ text }) => `Summary: ${String(text).split(/\s+/).slice(0, 20).join(' ')}…`,
  },

  // Math and units
  {
    name: 'calculate',
    description: 'Evaluate an arithmetic expression (+ - * / ^ and parentheses) and return the exact result.',
    parameters: object({ expression: str('Expression, e.g. "(12.5 * 4) / 3".') }, ['expression']),
    handler: ({ expression }) => ({ expression, result: evaluate(String(expression)) }),
  },
  {
    name: 'convert_units',
    description: 'Convert a measurement between units of length, mass, temperature or volume.',
    parameters: object(
      { value: num('The amount.'), from: str('Unit, e.g. "km", "lb", "C".'), to: str('Unit to convert into.') },
      ['value', 'from', 'to'],
    ),
    handler: ({ value, from, to }) => ({ value, from, to, result: convertUnits(value, from, to) }),
  },
  {
    name: 'convert_currency',
    description: "Convert an amount of money between currencies at today's exchange rate.",
    parameters: object(
      {
        amount: num('Amount to convert.'),
        from: str('ISO currency code, e.g. "USD".', { minLength: 3, maxLength: 3 }),
        to: str('ISO currency code, e.g. "EUR".', { minLength: 3, maxLength: 3 }),
      },
      ['amount', 'from', 'to'],
    ),
    handler: ({ amount, from, to }) => {
      const rate = (RATES[String(to).toUpperCase()] ?? Number.NaN) / (RATES[String(from).toUpperCase()] ?? Number.NaN);
      if (!Number.isFinite(rate)) throw new Error(`unknown currency ${from} or ${to}`);
      return { amount, from, to, rate: Number(rate.toFixed(4)), result: Number((amount * rate).toFixed(2)) };
    },
  },

  // Utilities
  {
    name: 'get_current_time',
    description: 'Current date and time in a time zone.',
    parameters: object({ timezone: str('IANA time zone, e.g. "Europe/Oslo".') }),
    handler: ({ timezone = 'UTC' }) => ({ timezone, now: FIXED_NOW }),
  },
  {
    name: 'set_reminder',
    description: 'Set a reminder that notifies you at a given time.',
    parameters: object({ text: str('What to be reminded of.'), at: str('When, ISO 8601.', { format: 'date-time' }) }, [
      'text',
      'at',
    ]),
    handler: ({ text, at }) => ({ id: `rem_${hex(text, 6)}`, text, at }),
  },
  {
    name: 'lookup_contact',
    description: 'Find a person in your contacts or company directory: email, phone, team and title.',
    parameters: object({ name: str('Name or part of it.') }, ['name']),
    handler: ({ name }) => ({
      name,
      email: `${String(name).toLowerCase().split(/\s+/)[0]}@acme.example`,
      phone: `+47 ${pick(name, 40000000, 99999999)}`,
      team: choose(name, ['Payments', 'Platform', 'Growth']),
    }),
  },
  {
    name: 'get_stock_quote',
    description: 'Latest stock price, daily change and volume for a ticker symbol.',
    parameters: object({ symbol: str('Ticker symbol, e.g. "ACME".') }, ['symbol']),
    handler: ({ symbol }) => ({
      symbol: String(symbol).toUpperCase(),
      price: pick(symbol, 1000, 50000) / 100,
      changePercent: (pick(`${symbol}c`, 0, 800) - 400) / 100,
      currency: 'USD',
    }),
  },
  {
    name: 'get_news_headlines',
    description: 'Top news headlines, optionally for a topic or country.',
    parameters: object({ topic: str('Topic, e.g. "technology".'), country: str('Two-letter country code.') }),
    handler: ({ topic = 'world' }) => [
      `${topic}: markets open higher`,
      `${topic}: new open-source release draws praise`,
      `${topic}: city council approves bike lanes`,
    ],
  },
  {
    name: 'run_shell_command',
    description: 'Run a shell command in the workspace terminal and return its output and exit code.',
    parameters: object(
      {
        command: str('The command line.'),
        timeoutSeconds: int('Kill it after this long.', { minimum: 1, maximum: 600 }),
      },
      ['command'],
    ),
    handler: ({ command }) => ({
      command,
      exitCode: 0,
      stdout: String(command).startsWith('npm test') ? 'Test Files  12 passed (12)\n     Tests  148 passed (148)' : '',
    }),
  },
  {
    name: 'shorten_url',
    description: 'Create a short link for a long URL.',
    parameters: object({ url: str('The long URL.', { format: 'uri' }) }, ['url']),
    handler: ({ url }) => ({ url, short: `https://sho.rt/${hex(url, 6)}` }),
  },
];

const RATES: Record<string, number> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  NOK: 10.6,
  SEK: 10.4,
  JPY: 156.2,
  CHF: 0.9,
  CAD: 1.37,
};

const UNIT: Record<string, [kind: string, factor: number]> = {
  m: ['length', 1],
  km: ['length', 1000],
  cm: ['length', 0.01],
  mi: ['length', 1609.344],
  ft: ['length', 0.3048],
  in: ['length', 0.0254],
  kg: ['mass', 1],
  g: ['mass', 0.001],
  lb: ['mass', 0.45359237],
  oz: ['mass', 0.028349523],
  l: ['volume', 1],
  ml: ['volume', 0.001],
  gal: ['volume', 3.785411784],
};

function convertUnits(value: number, from: string, to: string): number {
  const f = from.toLowerCase();
  const t = to.toLowerCase();
  const temps: Record<string, (v: number) => number> = {
    c: (v) => v,
    f: (v) => ((v - 32) * 5) / 9,
    k: (v) => v - 273.15,
  };
  const fromC: Record<string, (v: number) => number> = {
    c: (v) => v,
    f: (v) => (v * 9) / 5 + 32,
    k: (v) => v + 273.15,
  };
  const toCelsius = temps[f];
  const fromCelsius = fromC[t];
  if (toCelsius && fromCelsius) return round(fromCelsius(toCelsius(value)));
  const a = UNIT[f];
  const b = UNIT[t];
  if (!a || !b || a[0] !== b[0]) throw new Error(`cannot convert ${from} to ${to}`);
  return round((value * a[1]) / b[1]);
}

const round = (value: number): number => Math.round(value * 1e6) / 1e6;

/** A tiny recursive-descent evaluator (no eval: the worker must not run model-chosen code). */
function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/^()]/g) ?? [];
  if (tokens.join('') !== expression.replace(/\s+/g, '')) throw new Error(`cannot parse "${expression}"`);
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const next = (): string | undefined => tokens[at++];
  const primary = (): number => {
    const token = next();
    if (token === '(') {
      const value = sum();
      if (next() !== ')') throw new Error('missing )');
      return value;
    }
    if (token === '-') return -primary();
    if (token === undefined || !/^\d/.test(token)) throw new Error(`unexpected ${token ?? 'end'}`);
    return Number(token);
  };
  const power = (): number => {
    const base = primary();
    if (peek() !== '^') return base;
    next();
    return base ** power();
  };
  const product = (): number => {
    let value = power();
    while (peek() === '*' || peek() === '/') value = next() === '*' ? value * power() : value / power();
    return value;
  };
  const sum = (): number => {
    let value = product();
    while (peek() === '+' || peek() === '-') value = next() === '+' ? value + product() : value - product();
    return value;
  };
  const value = sum();
  if (at !== tokens.length) throw new Error(`unexpected ${peek()}`);
  return round(value);
}

/**
 * The demo tool surface: sixty-seven assistant tools with real JSON Schemas, in a stable
 * order. Names match `^[a-zA-Z0-9_-]+$`, so every provider accepts them unmapped.
 *
 * @example
 * import { DEMO_TOOLS } from './demo-tools.js'
 * DEMO_TOOLS.length           // 67
 * DEMO_TOOLS[0]?.name         // 'read_file'
 */
export const DEMO_TOOLS: readonly ToolSchema[] = Object.freeze(
  tools.map(({ name, description, parameters }) => Object.freeze({ name, description, parameters })),
);

/**
 * The demo tools with their offline handlers, for `registry.registerMany`.
 *
 * @example
 * registry.registerMany(demoToolEntries().filter((entry) => entry.schema.name.startsWith('git_')))
 */
export function demoToolEntries(): ToolEntry[] {
  return tools.map((tool, i) => ({ schema: DEMO_TOOLS[i] as ToolSchema, handler: tool.handler }));
}

/**
 * Register every demo tool with a deterministic offline handler (canned but plausible data;
 * no network). `fetch_url` on an `.invalid` host and `read_file` on a missing path fail on
 * purpose, so a demo can show a failing tool mid-run.
 *
 * @example
 * const registry = registerDemoTools(new ToolRegistry())
 * await registry.dispatch({ id: '1', name: 'get_current_weather', arguments: '{"city":"Oslo"}' })
 */
export function registerDemoTools(registry: ToolRegistry): ToolRegistry {
  registry.registerMany(demoToolEntries());
  return registry;
}
