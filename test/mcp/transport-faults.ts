/**
 * The MCP rows of `docs/fault-matrix.md`: what a mounted server's failure does to a call and
 * a run, each row naming the test that checks it. Rendered by `renderFaultMatrix`
 * (test/select/fault-table.ts) after the faults around the selectors.
 */

/** One transport fault and where it is tested. */
export interface TransportFault {
  readonly fault: string;
  readonly outcome: string;
  /** Test file and test name. */
  readonly test: string;
}

export const TRANSPORT_FAULTS: readonly TransportFault[] = [
  {
    fault: 'Streamable HTTP server killed mid-call',
    outcome:
      'the call ends **at once** with `MCP server … unreachable: connection lost during tools/call "…" (fetch failed (connect ECONNREFUSED …))`; the run goes on to its next turn',
    test: '`test/mcp/server-death.test.ts` (server-everything, SIGKILL)',
  },
  {
    fault: 'Notification stream cut, server still up',
    outcome: 'one `ping` finds the server; the call in flight carries on and answers',
    test: '`test/mcp/mount.test.ts` “a broken notification stream on a live server …”',
  },
  {
    fault: 'Server restarted, session forgotten (HTTP 404)',
    outcome: 'a new session; the call is resent once and answers',
    test: '`test/mcp/mount.test.ts` “a restart that lost our session …”',
  },
  {
    fault: 'Server down before the call',
    outcome: '`… unreachable: fetch failed (…)`; other servers’ tools answer in the same turn',
    test: '`test/mcp/loop.test.ts` “a server that is down …”',
  },
  {
    fault: 'Call past `timeoutMs` (default 60 s)',
    outcome: '`… no answer to tools/call "…" within N ms`; the server receives `notifications/cancelled`',
    test: '`test/mcp/mount.test.ts` “a call that outlives timeoutMs …”',
  },
  {
    fault: 'stdio server killed mid-call',
    outcome:
      'the call ends **at once** with `… connection lost during tools/call "…" (the server process was killed by SIGKILL; stderr: …)`; the next call starts the server again',
    test: '`test/mcp/stdio.test.ts`, `test/deno/mcp-stdio.test.ts` (server-everything, stdio)',
  },
  {
    fault: 'stdio server not found, exits at start, or writes non-JSON-RPC to stdout',
    outcome: 'the mount rejects with the reason and the stderr tail; the registry is unchanged',
    test: '`test/mcp/stdio.test.ts` “bad input …”',
  },
];

/**
 * The section of `docs/fault-matrix.md` for MCP transport faults.
 *
 * @example
 * lines.push(...renderTransportFaults())
 */
export function renderTransportFaults(): string[] {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  return [
    '## MCP transport faults',
    '',
    'What a mounted MCP server’s failure does to a call and its run (not a selector fault: the tool',
    'result is an error the model reads, dispatch never throws). Each row is the test it names.',
    '',
    '| Fault | What happens | Test |',
    '|---|---|---|',
    ...TRANSPORT_FAULTS.map((row) => `| ${cell(row.fault)} | ${cell(row.outcome)} | ${cell(row.test)} |`),
    '',
  ];
}
