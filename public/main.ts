/**
 * The demo page: wires the engine to the views and installs `window.__loopctl`.
 *
 * URL parameters (for links, tests and the benchmark): `device=auto|wasm|webgpu`,
 * `dtype=int8|fp32`, `k=1..15`, `prompt=…`, `registry=tools.json` (a same-origin tools file).
 */

import { DEMO_TOOLS, registerDemoTools } from '../demo/demo-tools.js';
import type { UseLiteDevice, UseLiteDtype } from '../src/adapters/use-lite.js';
import type { ToolSchema } from '../src/index.js';
import { approxTokenCounter, ToolRegistry } from '../src/index.js';
import { toolsCost } from '../src/selector-kit.js';
import { type ChatPanel, mountChat } from './chat.js';
import { byId, h, mount } from './dom.js';
import { DEMO_IDB_NAME, DemoEngine, type SelectorId, type SelectorResult } from './engine.js';
import { groupThousands } from './format.js';
import { renderChart, renderProgress, renderRegistry, renderResults, renderStatus, renderTimings } from './render.js';
import { DEMO_SAMPLES, samplePrompts } from './sample-prompts.js';
import { type DemoState, initialState, type LoopctlHook } from './state.js';
import { parseToolsFile } from './tools-file.js';

const params = new URLSearchParams(location.search);
const device = pick<UseLiteDevice>(params.get('device'), ['auto', 'wasm', 'webgpu'], 'auto');
const dtype = pick<UseLiteDtype>(params.get('dtype'), ['int8', 'fp32'], 'int8');
const k = clampInt(params.get('k'), 1, 15, 6);

const state: DemoState = initialState(device, dtype, k);
state.prompt = params.get('prompt') ?? DEMO_SAMPLES[0] ?? '';

const el = {
  status: byId('status'),
  progress: byId('progress'),
  prompt: byId<HTMLTextAreaElement>('prompt'),
  samples: byId('samples'),
  k: byId<HTMLInputElement>('k'),
  kValue: byId<HTMLOutputElement>('k-value'),
  device: byId<HTMLSelectElement>('device'),
  dtype: byId<HTMLSelectElement>('dtype'),
  summary: byId('registry-summary'),
  dropzone: byId('dropzone'),
  file: byId<HTMLInputElement>('tools-file'),
  errors: byId('tools-errors'),
  useDemo: byId<HTMLButtonElement>('use-demo'),
  clearCache: byId<HTMLButtonElement>('clear-cache'),
  results: byId('results'),
  chart: byId('chart'),
  timings: byId('timings'),
  toolList: byId('tool-list'),
  chat: byId('chat'),
};

const engine = new DemoEngine({
  device,
  dtype,
  k,
  baseURI: document.baseURI,
  // `?vectors=none` turns the shipped vectors off (to compare with embedding the corpus).
  ...(params.get('vectors') === 'none' ? { vectorsPath: null } : {}),
  onProgress: (progress) => {
    state.progress = progress;
    renderProgress(el.progress, state);
  },
});
// The runtime and model downloads are the long pole: they start before anything else the page does.
const modelLoad = engine.load();
modelLoad.catch(() => undefined); // awaited in start()

let registry = registerDemoTools(new ToolRegistry());
let chat: ChatPanel | undefined;

let settle!: { resolve: (s: DemoState) => void; reject: (e: unknown) => void };
const ready = new Promise<DemoState>((resolve, reject) => (settle = { resolve, reject }));
ready.catch(() => undefined); // reported on the page; a test awaiting it still sees the rejection

const hook: LoopctlHook = {
  ready,
  state,
  select: (prompt) => {
    el.prompt.value = prompt;
    return refreshSelections(prompt);
  },
  timeEmbed: (texts) => engine.timeEmbed(texts),
  loadToolsText: (text, label) => loadToolsText(text, label ?? 'tools.json'),
};
window.__loopctl = hook;

// ---------------------------------------------------------------------------------------------
// Rendering

function renderAll(): void {
  renderStatus(el.status, state);
  renderProgress(el.progress, state);
  renderResults(el.results, state);
  renderChart(el.chart, state);
  renderTimings(el.timings, state);
  renderRegistry(el.toolList, engine.tools, state);
  el.summary.textContent = `${state.registry.label} · ${state.registry.count} tools · ${groupThousands(state.registry.tokens)} schema tokens`;
  const hybridOption = el.chat.querySelector('option[value=hybrid]') as HTMLOptionElement | null;
  if (hybridOption) hybridOption.hidden = !state.hybrid;
  chat?.refresh();
}

// ---------------------------------------------------------------------------------------------
// Selection

let current: AbortController | undefined;

/** Run the selectors on a prompt; a newer call aborts an older one still embedding. */
async function refreshSelections(prompt: string): Promise<SelectorResult[]> {
  current?.abort(new DOMException('superseded by a newer prompt', 'AbortError'));
  const controller = new AbortController();
  current = controller;
  state.prompt = prompt;
  // Before the model is ready the lexical selectors still answer: they need no model.
  const include: SelectorId[] =
    state.phase === 'ready' ? ['keyword', 'bm25', 'embedding', 'hybrid'] : ['keyword', 'bm25'];
  try {
    const results = await engine.select(prompt, controller.signal, include);
    if (current === controller) {
      state.results = results;
      state.selections++;
      renderAll();
    }
    return results;
  } catch (error) {
    if (controller.signal.aborted) return state.results;
    throw error;
  }
}

let debounce: ReturnType<typeof setTimeout> | undefined;
el.prompt.addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => void refreshSelections(el.prompt.value).catch(showError), 160);
});

// ---------------------------------------------------------------------------------------------
// Registry: demo tools or a dropped tools.json

async function useTools(tools: readonly ToolSchema[], source: 'demo' | 'file', label: string): Promise<void> {
  engine.useTools(tools);
  showSamples(samplePrompts(tools, source));
  state.registry = { source, label, count: tools.length, tokens: toolsCost(tools, approxTokenCounter) };
  state.results = [];
  renderAll();
  if (state.phase === 'ready' || state.phase === 'embedding-corpus') {
    state.phase = 'embedding-corpus';
    state.progress = undefined;
    renderAll();
    try {
      state.corpus = await engine.setTools(tools, state.prompt);
      state.corpusEmbedsTotal = engine.stats.corpusEmbeds;
    } finally {
      state.phase = 'ready';
    }
  }
  await refreshSelections(state.prompt);
}

async function loadToolsText(text: string, label: string): Promise<readonly string[]> {
  const parsed = parseToolsFile(text);
  if (!parsed.ok) {
    showToolErrors(label, parsed.errors);
    return parsed.errors;
  }
  const next = new ToolRegistry();
  // A dropped file has no handlers: the chat panel reports calls instead of running them.
  for (const tool of parsed.tools) {
    next.register(tool, (args: unknown) => ({ note: `the demo has no handler for ${tool.name}`, arguments: args }));
  }
  registry = next;
  showToolErrors(label, []);
  await useTools(registry.schemas(), 'file', label);
  return [];
}

function showToolErrors(label: string, errors: readonly string[]): void {
  el.errors.hidden = errors.length === 0;
  mount(
    el.errors,
    ...(errors.length ? [h('li', { class: 'errors-title' }, `${label} was not loaded:`)] : []),
    ...errors.map((e) => h('li', null, e)),
  );
}

async function readFile(file: File): Promise<void> {
  await loadToolsText(await file.text(), file.name).catch(showError);
}

el.file.addEventListener('change', () => {
  const file = el.file.files?.[0];
  if (file) void readFile(file);
  el.file.value = '';
});
for (const type of ['dragenter', 'dragover']) {
  el.dropzone.addEventListener(type, (event) => {
    event.preventDefault();
    el.dropzone.classList.add('over');
  });
}
for (const type of ['dragleave', 'drop'])
  el.dropzone.addEventListener(type, () => el.dropzone.classList.remove('over'));
el.dropzone.addEventListener('drop', (event) => {
  event.preventDefault();
  const file = (event as DragEvent).dataTransfer?.files[0];
  if (file) void readFile(file);
});
el.useDemo.addEventListener('click', () => {
  registry = registerDemoTools(new ToolRegistry());
  showToolErrors('', []);
  void useTools(DEMO_TOOLS, 'demo', 'demo registry').catch(showError);
});
el.clearCache.addEventListener('click', () => {
  const request = indexedDB.deleteDatabase(DEMO_IDB_NAME);
  request.onsuccess = request.onerror = request.onblocked = () => location.reload();
});

// ---------------------------------------------------------------------------------------------
// Controls

let samples: readonly string[] = [];

/**
 * Show the sample prompts for the tools on the page. A prompt box still holding one of the
 * previous samples takes the first new one, so it does not ask the new tools about the old.
 */
function showSamples(next: readonly string[]): void {
  if (samples.includes(state.prompt) && next[0] !== undefined && !next.includes(state.prompt)) {
    state.prompt = next[0];
    el.prompt.value = next[0];
  }
  samples = next;
  mount(
    el.samples,
    ...next.map((sample) =>
      h(
        'button',
        { type: 'button', class: 'sample', onclick: () => void hook.select(sample).catch(showError) },
        sample,
      ),
    ),
  );
}

showSamples(DEMO_SAMPLES);
el.prompt.value = state.prompt;
el.k.value = String(k);
el.kValue.value = String(k);
el.k.addEventListener('input', () => {
  const next = Number(el.k.value);
  el.kValue.value = String(next);
  state.k = next;
  engine.setK(next);
  void refreshSelections(el.prompt.value).catch(showError);
});
el.device.value = device;
el.dtype.value = dtype;
for (const select of [el.device, el.dtype]) {
  select.addEventListener('change', () => {
    const url = new URL(location.href);
    url.searchParams.set(select === el.device ? 'device' : 'dtype', select.value);
    location.assign(url);
  });
}

chat = mountChat(el.chat, { engine, registry: () => registry, prompt: () => el.prompt.value });

function showError(error: unknown): void {
  state.error = error instanceof Error ? error.message : String(error);
  console.error(error);
  renderAll();
}

// ---------------------------------------------------------------------------------------------
// Start: lexical results at once, then the model, the corpus, and the full comparison.

async function start(): Promise<void> {
  const registryParam = params.get('registry');
  const loaded = registryParam ? await loadRegistryParam(registryParam) : false;
  if (!loaded) await useTools(DEMO_TOOLS, 'demo', 'demo registry');
  state.phase = 'loading-model';
  renderAll();
  // Shipped or cached corpus vectors need no model: they load (and land in IndexedDB) while the
  // model does; only the query embedding waits for it.
  const tools = engine.tools;
  const corpus = engine.setTools(tools, state.prompt);
  corpus.catch(() => undefined); // awaited below
  state.backend = await modelLoad;
  state.hybrid = engine.hasHybrid;
  if (state.backend.device === 'webgpu') state.adapter = await adapterName();
  state.phase = 'embedding-corpus';
  state.progress = undefined;
  renderAll();
  state.corpus = await corpus;
  // A tools file dropped while the model loaded replaced the list: make its corpus ready too.
  if (engine.tools !== tools) state.corpus = await engine.setTools(engine.tools, state.prompt);
  state.corpusEmbedsTotal = engine.stats.corpusEmbeds;
  state.phase = 'ready';
  await refreshSelections(el.prompt.value);
}

start().then(
  () => settle.resolve(state),
  (error: unknown) => {
    state.phase = 'error';
    showError(error);
    settle.reject(error);
  },
);

/**
 * `?registry=path/to/tools.json` loads a tools file served next to the page. Same origin only:
 * the page never fetches anything from elsewhere. Returns whether it loaded.
 */
async function loadRegistryParam(value: string): Promise<boolean> {
  const url = new URL(value, document.baseURI);
  const label = url.pathname.split('/').pop() || 'tools.json';
  if (url.origin !== location.origin) {
    showToolErrors(label, [`?registry must be on this page's origin (${location.origin}), got ${url.origin}`]);
    return false;
  }
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return (await loadToolsText(await response.text(), label)).length === 0;
  } catch (error) {
    showToolErrors(label, [
      `could not fetch ${url.pathname}: ${error instanceof Error ? error.message : String(error)}`,
    ]);
    return false;
  }
}

/** "vendor architecture" of the WebGPU adapter, for the timings table. */
async function adapterName(): Promise<string | undefined> {
  type Adapter = { info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean } };
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<Adapter | null> } }).gpu;
  const info = (await gpu?.requestAdapter().catch(() => null))?.info;
  if (!info) return undefined;
  const name = [info.vendor, info.architecture].filter(Boolean).join(' ');
  return info.isFallbackAdapter ? `${name} (software)` : name || undefined;
}

function pick<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function clampInt(value: string | null, min: number, max: number, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}
