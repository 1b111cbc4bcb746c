/**
 * The fault matrix's rows for hostile input: tool lists, prompts, bodies, upstream streams and
 * patterns from a client or a model of a shared server, each with what happens and the test
 * that checks it. `renderFaultMatrix` (test/select/fault-table.ts) prints them into
 * docs/fault-matrix.md.
 */

/** One hostile input, what the server does, and the test that says so. */
export interface HostileInputFault {
  readonly fault: string;
  readonly outcome: string;
  readonly test: string;
}

export const HOSTILE_INPUT_FAULTS: readonly HostileInputFault[] = [
  {
    fault:
      "A tool list chosen to reach another list's vector-cache key (the old 64-bit key: same names, other descriptions, five fixing characters)",
    outcome:
      'each list gets its own SHA-256 key; the victim ranks with its own vectors, in one isolate and across isolates sharing KV; an entry stored under a key but written for other texts is refused and rebuilt',
    test: '`test/embed/cache-poisoning.test.ts`, `test/workers/proxy-kv.test.ts` (real KV), `test/adapters/search-door.test.ts`',
  },
  {
    fault: 'A body of 1 MiB or more nested thousands of levels deep',
    outcome:
      'a 400 in the provider’s shape past `PROXY_MAX_JSON_DEPTH` (128), found in one linear pass before any parse; a small request sent meanwhile is answered',
    test: '`test/proxy/deep-nesting.test.ts`, `test/proxy/body-in-steps.test.ts`',
  },
  {
    fault: 'More tools in one request than `PROXY_MAX_TOOLS` (10,000)',
    outcome: 'a 400 in the provider’s shape naming the limit; nothing forwarded',
    test: '`test/proxy/tool-limits.test.ts`',
  },
  {
    fault: 'One client (or many made-up keys) cycling through new tool lists',
    outcome:
      'past `PROXY_NEW_TOOL_SETS_PER_CLIENT` (60 an hour) or `PROXY_NEW_TOOL_SETS_TOTAL` (600), the new list is ranked with `bm25`: nothing embedded, nothing written; `x-loopctl-degraded` says why. On Workers every isolate spends from one Durable Object; an unreachable one ranks lexically too',
    test: '`test/proxy/tool-limits.test.ts`, `test/workers/tool-set-budget.test.ts` (real Durable Object)',
  },
  {
    fault: 'A new tool list of thousands of tools',
    outcome:
      'at most `LOOPCTL_MAX_NEW_EMBEDS` (512) texts are embedded per request; the list is ranked lexically, narrowed, until it is whole (`x-loopctl-warning`)',
    test: '`test/proxy/tool-limits.test.ts`',
  },
  {
    fault: 'Tool lists nobody sends again, written to the vector cache',
    outcome:
      'KV entries expire after `VECTORS_TTL_SECONDS` (a week); the file cache keeps at most 512 entries and 1 GiB, least recently used going first',
    test: '`test/workers/proxy-kv.test.ts`, `test/embed/file-cache-bounds.test.ts`',
  },
  {
    fault: 'Uploads that declare a large `Content-Length` and stall',
    outcome:
      'buffers grow as bytes arrive, never to the declared size; past `LOOPCTL_UPLOAD_BUFFER_BYTES` (64 MiB) held by unfinished uploads, a 503 with `Retry-After: 1` in the provider’s (or the API’s) shape; the bytes come back when the upload ends',
    test: '`test/worker/read-body.test.ts`, `test/worker/upload-budget.test.ts`',
  },
  {
    fault: 'A model’s Grep pattern with nested quantifiers (`(a+)+$`), or a Glob of many `**/` or `*`',
    outcome:
      'matched in linear time (no backtracking); over `maxPatternSteps` a clear “pattern too expensive” tool error; back-references and lookaround refused by name; an abort ends the call within one pause',
    test: '`test/file-tools/pattern-bounds.test.ts`, `test/file-tools/linear-matcher.test.ts`',
  },
  {
    fault: 'A POST with `text/plain`, a form or no `Content-Type` (a web page’s simple cross-origin request)',
    outcome: 'a 415 in the provider’s (or the API’s) shape; nothing forwarded',
    test: '`test/proxy/browser-requests.test.ts`',
  },
  {
    fault: 'A `Host` that is not loopback, on a server bound to loopback (DNS rebinding)',
    outcome: 'a 403 `host_not_allowed`; `ALLOWED_HOSTS` widens it',
    test: '`test/proxy/browser-requests.test.ts`',
  },
  {
    fault:
      'With server-side search active, an upstream stream that ends before its finish, sends data that is not a JSON object, or loses its connection',
    outcome:
      'an error event in the protocol’s stream shape, never a made-up `stop` + `[DONE]`, `end_turn` + `message_stop` or `response.completed`; garbage is not relayed; a broken non-stream answer is a 502',
    test: '`test/proxy/broken-streams.test.ts`',
  },
  {
    fault: 'An upstream that goes silent after its headers, or sends one SSE event without end',
    outcome:
      'past `PROXY_IDLE_TIMEOUT_MS` (300 s) between chunks, a 504 or a `timeout_error` event and the upstream cancelled; past `PROXY_MAX_SSE_EVENT_BYTES` (16 MiB) in one event, an error event, reading stopped at the cap and one chunk',
    test: '`test/proxy/stalled-streams.test.ts`',
  },
  {
    fault: 'An upstream error that echoes the server’s key, whole or masked',
    outcome: 'relayed with the key as `[redacted]` (body read up to 256 KiB)',
    test: '`test/proxy/upstream-credentials.test.ts`',
  },
  {
    fault: 'A token holder sends `x-goog-api-key`, `openai-organization` or `openai-project`',
    outcome: 'not forwarded in token mode (the server’s key is billed to the server’s own organisation)',
    test: '`test/proxy/upstream-credentials.test.ts`',
  },
  {
    fault: 'One `MODEL_API_KEY` and two upstreams',
    outcome:
      'each upstream gets its own key (`PROXY_OPENAI_API_KEY`, `PROXY_ANTHROPIC_API_KEY`); `MODEL_API_KEY` goes only to `MODEL_PROVIDER`’s protocol',
    test: '`test/proxy/upstream-credentials.test.ts`',
  },
  {
    fault: 'A model folder that cannot load',
    outcome:
      'logged once on the server’s console with the path; clients hear only that the embedding model is unavailable',
    test: '`test/worker/node-server.test.ts`',
  },
];

/**
 * The fault matrix's hostile-input section, as markdown lines.
 *
 * @example
 * lines.push(...renderHostileInputFaults())
 */
export function renderHostileInputFaults(): string[] {
  const escapePipes = (text: string): string => text.replace(/\|/g, '\\|');
  return [
    '## Hostile input',
    '',
    'A shared server treats every tool list, prompt, body, upstream stream and model-supplied pattern',
    'as hostile: each row is a bound on what one request or one client can cost, or a key another',
    'request cannot reach. docs/proxy.md, “Limits and trust”, lists every bound with its variable.',
    '',
    '| Fault | What happens | Test |',
    '|---|---|---|',
    ...HOSTILE_INPUT_FAULTS.map((row) => `| ${escapePipes(row.fault)} | ${escapePipes(row.outcome)} | ${row.test} |`),
    '',
  ];
}
