/**
 * Views: status chips, progress bar, selector columns, token chart, registry list. Each takes
 * the plain state and replaces its container's children, so rendering is idempotent.
 */
import type { ToolSchema } from '../src/index.js';
import { approxTokenCounter } from '../src/index.js';
import { toolCost } from '../src/selector-kit.js';
import { tokenChart } from './chart.js';
import { bytes, h, mount, ms } from './dom.js';
import type { SelectorId, SelectorResult } from './engine.js';
import { groupThousands } from './format.js';
import type { DemoState } from './state.js';

/** One-line explanation of each selector, shown under its title. */
const EXPLAIN: Record<SelectorId, string> = {
  keyword: 'Any overlap of prompt words (synonyms expanded) with a tool’s name and description.',
  bm25: 'BM25 over split names, descriptions and parameter text; top k.',
  embedding: 'Cosine similarity of prompt and tool text, USE-lite embeddings; top k.',
  hybrid: 'Lexical and embedding rankings blended; top k.',
};

const ORDER: readonly SelectorId[] = ['keyword', 'bm25', 'embedding', 'hybrid'];

/** Rows shown per column before "+N more". */
const MAX_ROWS = 12;

/** The header chips: backend, model, corpus, query time, isolation. */
export function renderStatus(root: HTMLElement, state: DemoState): void {
  const backend = state.backend;
  const embedding = state.results.find((r) => r.id === 'embedding');
  const chips: HTMLElement[] = [];
  if (backend) {
    const label =
      backend.device === 'webgpu'
        ? 'WebGPU'
        : `WASM · ${backend.numThreads ?? 1} thread${backend.numThreads === 1 ? '' : 's'}`;
    chips.push(
      chip(
        'backend',
        'Backend',
        label,
        backend.fallbackReason ? `requested ${state.requested.device}: ${backend.fallbackReason}` : undefined,
      ),
    );
    chips.push(
      chip('model', 'Model', `USE-lite ${backend.dtype} · ${bytes(backend.modelBytes)} · ${ms(backend.loadMs)}`),
    );
  } else if (state.phase === 'error') {
    chips.push(chip('backend error', 'Backend', 'failed to load', state.error));
  } else {
    chips.push(chip('backend pending', 'Backend', `${state.requested.device} · loading…`));
  }
  const corpus = state.corpus;
  if (corpus) {
    const text =
      corpus.source === 'shipped'
        ? `shipped vectors, ${corpus.corpusEmbeds} embedded`
        : corpus.source === 'idb'
          ? `from cache, ${corpus.corpusEmbeds} embedded`
          : corpus.source === 'memory'
            ? 'in memory, 0 embedded'
            : `embedded ${corpus.corpusEmbeds} tools`;
    chips.push(chip(`corpus corpus-${corpus.source}`, 'Corpus', `${text} · ${ms(corpus.ms)}`));
  } else {
    chips.push(chip('corpus pending', 'Corpus', 'waiting for the model'));
  }
  if (embedding) chips.push(chip('query', 'Query', `${ms(embedding.ms)} embed + rank`));
  chips.push(
    chip(
      `isolation ${state.crossOriginIsolated ? 'ok' : 'warn'}`,
      'Isolation',
      state.crossOriginIsolated ? 'COOP/COEP on' : 'off (no WASM threads)',
    ),
  );
  mount(root, ...chips);
}

function chip(kind: string, label: string, value: string, title?: string): HTMLElement {
  return h('span', { class: `chip ${kind}`, title, 'data-chip': kind.split(' ')[0] }, h('b', null, label), ' ', value);
}

/** The progress bar: model bytes, then corpus texts. Hidden when idle. */
export function renderProgress(root: HTMLElement, state: DemoState): void {
  const busy = state.phase === 'loading-model' || state.phase === 'embedding-corpus' || state.phase === 'starting';
  root.hidden = !busy;
  if (!busy) return;
  const p = state.progress;
  let label = 'Starting…';
  let fraction: number | undefined;
  if (p?.phase === 'runtime') label = 'Loading ONNX runtime and tokenizer…';
  if (p?.phase === 'load') {
    fraction = p.total > 0 ? p.done / p.total : undefined;
    label = `Loading model · ${bytes(p.done)}${p.total ? ` of ${bytes(p.total)}` : ''}`;
  }
  if (p?.phase === 'corpus') {
    fraction = p.total > 0 ? p.done / p.total : undefined;
    label = `Embedding tool corpus · ${p.done} of ${p.total} tools`;
  }
  if (state.phase === 'embedding-corpus' && p?.phase !== 'corpus') label = 'Reading corpus vectors…';
  const bar = root.querySelector('.progress-fill') as HTMLElement;
  const text = root.querySelector('.progress-label') as HTMLElement;
  root.classList.toggle('indeterminate', fraction === undefined);
  bar.style.width = fraction === undefined ? '' : `${Math.round(fraction * 100)}%`;
  root.setAttribute('aria-valuenow', fraction === undefined ? '' : String(Math.round(fraction * 100)));
  text.textContent = label;
}

/** The selector columns. Columns whose selector has not run yet show a placeholder. */
export function renderResults(root: HTMLElement, state: DemoState): void {
  const ids = ORDER.filter((id) => id !== 'hybrid' || state.hybrid);
  const columns = ids.map((id) => {
    const result = state.results.find((r) => r.id === id);
    return result ? column(result, state) : placeholder(id, state);
  });
  root.style.setProperty('--columns', String(ids.length));
  mount(root, ...columns);
}

function column(result: SelectorResult, state: DemoState): HTMLElement {
  const max = Math.max(...result.ranked.map((t) => t.score ?? 0), 1e-9);
  const rows = result.ranked.slice(0, MAX_ROWS).map((tool) => {
    const pct = tool.score === undefined ? 0 : Math.max(2, (tool.score / max) * 100);
    const score =
      tool.score === undefined
        ? tool.core
          ? 'core'
          : ''
        : result.id === 'embedding' || result.id === 'hybrid'
          ? tool.score.toFixed(3)
          : tool.score.toFixed(2);
    return h(
      'li',
      { 'data-tool': tool.name },
      h('span', { class: 'tool-name' }, tool.name),
      h('span', { class: 'score' }, score),
      h('span', { class: 'meter', 'aria-hidden': 'true' }, h('i', { style: `width:${pct.toFixed(1)}%` })),
      tool.matched?.length ? h('span', { class: 'words' }, ...tool.matched.map((w) => h('mark', null, w))) : null,
    );
  });
  const more = result.ranked.length - MAX_ROWS;
  const total = state.registry.count;
  return h(
    'article',
    { class: `selector sel-${result.id}`, 'data-selector': result.id },
    h(
      'header',
      null,
      h('h3', null, result.label),
      h('span', { class: 'count' }, `${result.names.length}`, h('small', null, ` / ${total}`)),
    ),
    h('p', { class: 'explain' }, EXPLAIN[result.id]),
    h('p', { class: 'meta' }, `${groupThousands(result.tokens)} schema tokens · ${ms(result.ms)}`),
    result.fellOpen ? h('p', { class: 'warn' }, `Fell open (${result.fellOpen}): every tool is advertised.`) : null,
    ...result.warnings.filter((w) => !w.startsWith('selector fell open')).map((w) => h('p', { class: 'warn' }, w)),
    h('ol', { class: 'ranked' }, ...rows),
    more > 0 ? h('p', { class: 'more' }, `+${more} more`) : null,
  );
}

function placeholder(id: SelectorId, state: DemoState): HTMLElement {
  const text = state.phase === 'error' ? `Unavailable: ${state.error ?? 'load failed'}` : 'Waiting for the model…';
  return h(
    'article',
    { class: `selector sel-${id} pending`, 'data-selector': id },
    h('header', null, h('h3', null, id === 'bm25' ? 'BM25' : id[0]?.toUpperCase() + id.slice(1))),
    h('p', { class: 'explain' }, EXPLAIN[id]),
    h('p', { class: 'meta' }, text),
    h(
      'ol',
      { class: 'ranked skeleton' },
      ...Array.from({ length: 5 }, () => h('li', null, h('span', { class: 'tool-name' }, ' '))),
    ),
  );
}

/** The backend and timings table: what runs, how long loading took, this prompt's cost per selector. */
export function renderTimings(root: HTMLElement, state: DemoState): void {
  const rows: [string, Node | string][] = [];
  const backend = state.backend;
  if (backend) {
    const where =
      backend.device === 'webgpu'
        ? `WebGPU${state.adapter ? ` · ${state.adapter}` : ''}`
        : `WASM SIMD · ${backend.numThreads ?? 1} thread${backend.numThreads === 1 ? '' : 's'}${state.crossOriginIsolated ? '' : ' (not isolated)'}`;
    rows.push(['Backend', backend.fallbackReason ? `${where} (${backend.fallbackReason})` : where]);
    rows.push(['Model load', `${ms(backend.loadMs)} · USE-lite ${backend.dtype}, ${bytes(backend.modelBytes)}`]);
  } else {
    rows.push([
      'Backend',
      state.phase === 'error' ? `failed: ${state.error ?? ''}` : `loading (${state.requested.device})…`,
    ]);
  }
  const corpus = state.corpus;
  if (corpus) {
    const how =
      corpus.source === 'shipped'
        ? `${corpus.seeded} vectors from the shipped file, ${corpus.corpusEmbeds} embedded`
        : corpus.source === 'idb'
          ? `${corpus.tools} vectors from IndexedDB, 0 embedded`
          : corpus.source === 'memory'
            ? `${corpus.tools} vectors already in memory`
            : `${corpus.corpusEmbeds} tools embedded (${ms(corpus.ms / Math.max(1, corpus.corpusEmbeds))} per tool)`;
    rows.push(['Corpus', `${ms(corpus.ms)} · ${how}`]);
  }
  for (const result of state.results) {
    rows.push([
      result.label,
      h('span', null, h('i', { class: `swatch dot-${result.id}` }), `${ms(result.ms)} for this prompt`),
    ]);
  }
  mount(root, ...rows.map(([label, value]) => h('tr', null, h('th', { scope: 'row' }, label), h('td', null, value))));
}

/** The chart of schema tokens: the full registry, then each selector that has run. */
export function renderChart(root: HTMLElement, state: DemoState): void {
  const rows = [
    { key: 'all', label: 'Full registry', detail: `${state.registry.count} tools`, tokens: state.registry.tokens },
    ...state.results.map((r) => ({ key: r.id, label: r.label, detail: `${r.names.length} tools`, tokens: r.tokens })),
  ];
  mount(root, tokenChart(rows));
}

/** The registry list: every tool with its schema cost, advertised ones marked per selector. */
export function renderRegistry(root: HTMLElement, tools: readonly ToolSchema[], state: DemoState): void {
  const advertised = new Map<string, SelectorId[]>();
  for (const result of state.results) {
    for (const name of result.names) advertised.set(name, [...(advertised.get(name) ?? []), result.id]);
  }
  const items = tools.map((tool) =>
    h(
      'li',
      null,
      h('span', { class: 'tool-name' }, tool.name),
      h(
        'span',
        { class: 'dots' },
        ...(advertised.get(tool.name) ?? []).map((id) => h('i', { class: `dot dot-${id}`, title: id })),
      ),
      h('span', { class: 'cost' }, `${toolCost(tool, approxTokenCounter)} tok`),
      h('span', { class: 'desc' }, tool.description),
    ),
  );
  mount(root, ...items);
}
