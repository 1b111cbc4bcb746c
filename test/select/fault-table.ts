/**
 * The selector fault matrix, as data: rows are faults, columns are the built-in selectors,
 * cells are the documented outcome. `test/select/fault-matrix.test.ts` drives every cell
 * through BareLoop against the scripted model server, and `scripts/fault-matrix-doc.mjs`
 * renders `docs/fault-matrix.md` from {@link renderFaultMatrix}, so the published table and
 * the tested one are the same object. Keep this file free of runtime imports (the doc script
 * loads it on its own) but for the MCP rows, plain data in test/mcp/transport-faults.ts.
 */
import { renderTransportFaults } from '../mcp/transport-faults.js';
import { renderHostileInputFaults } from '../proxy/hostile-input-faults.js';

export const SELECTOR_IDS = ['keyword', 'bm25', 'embedding', 'hybrid', 'rewriting'] as const;
export type SelectorId = (typeof SELECTOR_IDS)[number];

export const FAULT_IDS = [
  'throws',
  'rejects',
  'hangs',
  'nan-vectors',
  'zero-vectors',
  'empty-vectors',
  'wrong-count',
  'fabricated',
  'unknown-names',
  'garbage',
  'budget',
  'cancelled',
] as const;
export type FaultId = (typeof FAULT_IDS)[number];

/**
 * What a cell promises. `cause` is text the selection's `fellOpen` (or, for the hybrid's
 * degradation, the warning) must contain; the loop repeats it in a `warning` event.
 */
export type Cell =
  | { readonly outcome: 'full-surface'; readonly cause: string; readonly turn?: number }
  | { readonly outcome: 'lexical-only'; readonly cause: string }
  | { readonly outcome: 'drops-fabricated' }
  | { readonly outcome: 'ignores-unknown' }
  | { readonly outcome: 'cancelled' }
  | { readonly outcome: 'n/a'; readonly why: string };

export interface FaultRow {
  readonly id: FaultId;
  /** The row label. */
  readonly fault: string;
  /** How the matrix injects the fault, per selector family. */
  readonly injection: string;
  readonly cells: Readonly<Record<SelectorId, Cell>>;
}

/** Fixed figures the scenarios use, so causes can quote them. */
export const MATRIX = {
  /** The selectors' own timeout in the matrix (rewriting; embedding and hybrid opt in to it). */
  timeoutMs: 250,
  /** The test embedder's dimensions. */
  dimensions: 64,
  /** The rewriting selector's token budget, and the usage its first answer reports. */
  budgetTokens: 100,
  firstAnswerTokens: 120,
  /** A prompt with no word of three or more letters. */
  garbagePrompt: '?! 42 … ¿¡ ok',
} as const;

const lexicalOnly = (cause: string): Cell => ({
  outcome: 'lexical-only',
  cause: `ranking on the lexical half only: ${cause}`,
});
const NO_DEPENDENCY = 'no dependency to fail';
const NO_VECTORS = 'no vectors';

export const FAULT_TABLE: readonly FaultRow[] = [
  {
    id: 'throws',
    fault: 'Dependency throws',
    injection:
      'embedding, hybrid: `embed()` throws synchronously on every call. rewriting: the selection model’s port resets every connection (the client throws a network error after its retries).',
    cells: {
      keyword: { outcome: 'n/a', why: NO_DEPENDENCY },
      bm25: { outcome: 'n/a', why: NO_DEPENDENCY },
      embedding: { outcome: 'full-surface', cause: 'corpus embedding failed: embedder threw' },
      hybrid: lexicalOnly('corpus embedding failed: embedder threw'),
      rewriting: { outcome: 'full-surface', cause: 'rewrite call failed: openai request failed' },
    },
  },
  {
    id: 'rejects',
    fault: 'Dependency rejects',
    injection:
      'embedding, hybrid: `embed()` returns a rejected promise on every call. rewriting: the selection model answers HTTP 500 to every attempt (2 attempts).',
    cells: {
      keyword: { outcome: 'n/a', why: NO_DEPENDENCY },
      bm25: { outcome: 'n/a', why: NO_DEPENDENCY },
      embedding: { outcome: 'full-surface', cause: 'corpus embedding failed: embedding service unavailable' },
      hybrid: lexicalOnly('corpus embedding failed: embedding service unavailable'),
      rewriting: { outcome: 'full-surface', cause: 'rewrite call failed: openai HTTP 500' },
    },
  },
  {
    id: 'hangs',
    fault: 'Hangs past the timeout',
    injection: `embedding, hybrid: \`embed()\` never settles and ignores its signal; the selector is configured with \`timeoutMs: ${MATRIX.timeoutMs}\` (opt-in: without it a hung embedder holds the turn until the run is cancelled, see “Run cancelled”), and the corpus build carries on in the background. rewriting: the selection model never answers; the selector’s own timeout is ${MATRIX.timeoutMs} ms.`,
    cells: {
      keyword: { outcome: 'n/a', why: NO_DEPENDENCY },
      bm25: { outcome: 'n/a', why: NO_DEPENDENCY },
      embedding: { outcome: 'full-surface', cause: `embedding timed out after ${MATRIX.timeoutMs} ms` },
      hybrid: lexicalOnly(`embedding timed out after ${MATRIX.timeoutMs} ms`),
      rewriting: { outcome: 'full-surface', cause: `rewrite call timed out after ${MATRIX.timeoutMs} ms` },
    },
  },
  {
    id: 'nan-vectors',
    fault: 'NaN vectors',
    injection: 'embedding, hybrid: the query embedding is all NaN (the corpus embeds normally).',
    cells: {
      keyword: { outcome: 'n/a', why: NO_VECTORS },
      bm25: { outcome: 'n/a', why: NO_VECTORS },
      embedding: { outcome: 'full-surface', cause: 'query vector cannot rank (zero or non-finite)' },
      hybrid: lexicalOnly('query vector cannot rank (zero or non-finite)'),
      rewriting: { outcome: 'n/a', why: NO_VECTORS },
    },
  },
  {
    id: 'zero-vectors',
    fault: 'Zero vectors',
    injection: 'embedding, hybrid: the query embedding is all zeros.',
    cells: {
      keyword: { outcome: 'n/a', why: NO_VECTORS },
      bm25: { outcome: 'n/a', why: NO_VECTORS },
      embedding: { outcome: 'full-surface', cause: 'query vector cannot rank (zero or non-finite)' },
      hybrid: lexicalOnly('query vector cannot rank (zero or non-finite)'),
      rewriting: { outcome: 'n/a', why: NO_VECTORS },
    },
  },
  {
    id: 'empty-vectors',
    fault: 'Empty vectors',
    injection: 'embedding, hybrid: the query embedding has length 0.',
    cells: {
      keyword: { outcome: 'n/a', why: NO_VECTORS },
      bm25: { outcome: 'n/a', why: NO_VECTORS },
      embedding: { outcome: 'full-surface', cause: `query vector has 0 dimensions, expected ${MATRIX.dimensions}` },
      hybrid: lexicalOnly(`query vector has 0 dimensions, expected ${MATRIX.dimensions}`),
      rewriting: { outcome: 'n/a', why: NO_VECTORS },
    },
  },
  {
    id: 'wrong-count',
    fault: 'Wrong vector count',
    injection: 'embedding, hybrid: the query call returns two vectors for one text.',
    cells: {
      keyword: { outcome: 'n/a', why: NO_VECTORS },
      bm25: { outcome: 'n/a', why: NO_VECTORS },
      embedding: { outcome: 'full-surface', cause: 'query embedding returned 2 vectors for 1 text' },
      hybrid: lexicalOnly('query embedding returned 2 vectors for 1 text'),
      rewriting: { outcome: 'n/a', why: NO_VECTORS },
    },
  },
  {
    id: 'fabricated',
    fault: 'Fabricated schemas',
    injection:
      'every selector, wrapped: the wrapper adds an invented schema (`delete_everything`) and a forged copy of a registered one (`send_email` with another description) to the built-in’s selection. The model then calls `delete_everything`.',
    cells: {
      keyword: { outcome: 'drops-fabricated' },
      bm25: { outcome: 'drops-fabricated' },
      embedding: { outcome: 'drops-fabricated' },
      hybrid: { outcome: 'drops-fabricated' },
      rewriting: { outcome: 'drops-fabricated' },
    },
  },
  {
    id: 'unknown-names',
    fault: 'Names not in the registry',
    injection:
      'keyword, bm25, embedding, hybrid: the core-tools option names a tool the registry does not hold. rewriting: the answer names only unregistered or mis-cased tools (`["delete_everything", "Get_Weather"]`).',
    cells: {
      keyword: { outcome: 'ignores-unknown' },
      bm25: { outcome: 'ignores-unknown' },
      embedding: { outcome: 'ignores-unknown' },
      hybrid: { outcome: 'ignores-unknown' },
      rewriting: { outcome: 'full-surface', cause: 'the answer named no registered tool' },
    },
  },
  {
    id: 'garbage',
    fault: 'Garbage',
    injection: `keyword, bm25: a prompt with no matchable words (\`${MATRIX.garbagePrompt}\`). embedding, hybrid: the query vector has the wrong dimension. rewriting: the answer is prose that names no tool.`,
    cells: {
      keyword: { outcome: 'full-surface', cause: 'the prompt has no words to match' },
      bm25: { outcome: 'full-surface', cause: 'the prompt has no words to match' },
      embedding: {
        outcome: 'full-surface',
        cause: `query vector has ${MATRIX.dimensions + 3} dimensions, expected ${MATRIX.dimensions}`,
      },
      hybrid: lexicalOnly(`query vector has ${MATRIX.dimensions + 3} dimensions, expected ${MATRIX.dimensions}`),
      rewriting: { outcome: 'full-surface', cause: 'the answer named no tool' },
    },
  },
  {
    id: 'budget',
    fault: 'Budget exhausted',
    injection: `rewriting: a ${MATRIX.budgetTokens}-token selector budget; the first answer reports ${MATRIX.firstAnswerTokens} tokens, so turn 2 is refused without a call.`,
    cells: {
      keyword: { outcome: 'n/a', why: 'spends nothing' },
      bm25: { outcome: 'n/a', why: 'spends nothing' },
      embedding: { outcome: 'n/a', why: 'no budget option' },
      hybrid: { outcome: 'n/a', why: 'no budget option' },
      rewriting: {
        outcome: 'full-surface',
        cause: `budget exhausted: ${MATRIX.firstAnswerTokens} of ${MATRIX.budgetTokens} tokens (tokens)`,
        turn: 2,
      },
    },
  },
  {
    id: 'cancelled',
    fault: 'Run cancelled mid-selection',
    injection:
      'embedding, hybrid: `embed()` never settles and ignores its signal; the run is aborted once it is called. rewriting: the selection model never answers; the run is aborted once the call is on the wire.',
    cells: {
      keyword: { outcome: 'n/a', why: 'synchronous; nothing to cancel mid-selection' },
      bm25: { outcome: 'n/a', why: 'synchronous; nothing to cancel mid-selection' },
      embedding: { outcome: 'cancelled' },
      hybrid: { outcome: 'cancelled' },
      rewriting: { outcome: 'cancelled' },
    },
  },
];

/** The cell's text in the published table. */
export function describeCell(cell: Cell): string {
  switch (cell.outcome) {
    case 'full-surface':
      return `**full surface**${cell.turn ? ` (from turn ${cell.turn})` : ''}; warns “${cell.cause}”`;
    case 'lexical-only':
      return `**lexical-only** (still narrowed); warns “${cell.cause}”`;
    case 'drops-fabricated':
      return '**fabrications dropped**, the real selection advertised; warns “dropped 2 schema(s) not in the registry”';
    case 'ignores-unknown':
      return '**unknown name ignored**, selection unaffected';
    case 'cancelled':
      return '**run ends `cancelled`** at once; no model request, no error';
    case 'n/a':
      return `n/a: ${cell.why}`;
  }
}

/** A fault outside the selector × fault grid: where it happens, what the system does, which test proves it. */
export interface SystemFault {
  readonly fault: string;
  readonly outcome: string;
  readonly test: string;
}

/** Faults around selection: custom selectors, HTTP clients, MCP servers. Each row names its test. */
export const SYSTEM_FAULTS: readonly SystemFault[] = [
  {
    fault:
      'Custom selector returns something malformed (`null`, `undefined`, a string, `{}`, `{ tools: null }`, `[null, 42]`, only unregistered tools)',
    outcome: '**full surface**; one `malformed_selection` warning naming what was wrong; the run goes on',
    test: '`test/loop/malformed-selection.test.ts`',
  },
  {
    fault: 'Custom selector throws or rejects',
    outcome: '**full surface**; one `selector_failed` warning with the error',
    test: '`test/loop/malformed-selection.test.ts`, `test/loop/selection.test.ts`',
  },
  {
    fault: 'A selector installed as sync returns a Promise',
    outcome: 'awaited, used as returned; one warning pointing at `withAsyncToolSelector`',
    test: '`test/loop/malformed-selection.test.ts`',
  },
  {
    fault: 'An HTTP client disconnects from a streamed `POST /v1/runs` while the model is answering',
    outcome:
      'the in-flight model request is aborted at once (the upstream sees its connection closed); no tool is dispatched after it',
    test: '`test/worker/suite.ts` (Node, Deno, the workerd pool), `test/worker/workerd-http.test.ts` (workerd over real sockets)',
  },
  {
    fault: 'A client aborts a proxied request (`/v1/chat/completions`, `/v1/messages`)',
    outcome: 'the upstream request is cancelled',
    test: '`test/proxy/proxy-suite.ts` (Node, workerd, Deno)',
  },
];

/** `docs/fault-matrix.md`, rendered from {@link FAULT_TABLE} and {@link SYSTEM_FAULTS}. */
export function renderFaultMatrix(): string {
  const escapePipes = (text: string): string => text.replace(/\|/g, '\\|');
  const lines = [
    '# Selector fault matrix',
    '',
    '<!-- Generated by scripts/fault-matrix-doc.mjs from test/select/fault-table.ts. Do not edit by hand. -->',
    '',
    'What each built-in selector does when something goes wrong. Every cell that is not n/a is a',
    'test in `test/select/fault-matrix.test.ts`: a real `BareLoop` run, under `ToolConstraint.Strict`,',
    'against the scripted model server over loopback HTTP (the rewriting selector’s model is a',
    'second scripted server).',
    '',
    `| Fault | ${SELECTOR_IDS.join(' | ')} |`,
    `|---|${SELECTOR_IDS.map(() => '---').join('|')}|`,
    ...FAULT_TABLE.map(
      (row) => `| ${row.fault} | ${SELECTOR_IDS.map((id) => escapePipes(describeCell(row.cells[id]))).join(' | ')} |`,
    ),
    '',
    '“Full surface” means every registered tool is advertised and the selection event’s `fellOpen`',
    'carries the cause, which the loop repeats as a `warning` event. “Lexical-only” is the hybrid’s',
    'documented degradation: it ranks on BM25 alone and says so in a warning; it falls open only',
    'when the lexical half cannot rank either.',
    '',
    '## Around the selectors',
    '',
    '| Fault | What happens | Test |',
    '|---|---|---|',
    ...SYSTEM_FAULTS.map((row) => `| ${escapePipes(row.fault)} | ${escapePipes(row.outcome)} | ${row.test} |`),
    '',
    ...renderTransportFaults(),
    ...renderHostileInputFaults(),
    '## How each fault is injected',
    '',
    ...FAULT_TABLE.map((row) => `- **${row.fault}**: ${row.injection}`),
    '',
    '## Checked in every cell',
    '',
    '- No unhandled promise rejection (the suite tracks `unhandledRejection`).',
    '- No tool that was not advertised on its turn is dispatched: the model also calls `send_email`',
    '  and the invented `delete_everything` every tool turn; an unadvertised call gets an error result and',
    '  its handler never runs.',
    '- Every request’s wire `tools` equal that turn’s advertised selection (no tools field when empty).',
    '- The run ends `stop` (or `cancelled` in the cancellation row), never `error`.',
    '',
  ];
  return lines.join('\n');
}
