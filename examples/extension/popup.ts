/**
 * The extension's popup (also its side panel): loopctl's EmbeddingSelector over a tool list,
 * running in the extension page with USE-lite on onnxruntime-web. The model, the runtime and
 * the WASM files are packaged with the extension; corpus vectors persist in the extension's
 * IndexedDB, so reopening the popup embeds only the prompt.
 */

import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import { parseToolsFile } from '../../public/tools-file.js';
import { idbVectorCache } from '../../src/adapters/idb.js';
import { useLiteEmbedder } from '../../src/adapters/use-lite.js';
import type { ToolSchema } from '../../src/index.js';
import { EmbeddingSelector } from '../../src/index.js';

const STORAGE_KEY = 'loopctl.extension.tools';
const TOP_K = 6;

/** What the e2e test reads through `window.__loopctl`. */
interface PopupState {
  phase: 'loading' | 'ready' | 'error';
  error?: string;
  backend?: string;
  corpus?: { source: 'idb' | 'embedded' | 'memory'; corpusEmbeds: number; ms: number };
  tools: number;
  names: string[];
  scores: Record<string, number>;
  queryMs?: number;
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const status = $('status');
const progress = $('progress');
const fill = progress.querySelector('.progress-fill') as HTMLElement;
const prompt = $<HTMLInputElement>('prompt');
const results = $('results');
const toolsBox = $<HTMLTextAreaElement>('tools');
const toolsError = $('tools-error');

const state: PopupState = { phase: 'loading', tools: 0, names: [], scores: {} };

// Everything is served from the extension itself: model folder and ORT files sit beside this page.
const embedder = useLiteEmbedder({
  modelPath: new URL('models/use-lite/', location.href).href,
  wasmPaths: new URL('ort/', location.href).href,
  device: 'auto',
  onProgress: (p) => p.phase === 'load' && showProgress(p.done, p.total, 'Loading model'),
});
const selector = new EmbeddingSelector(embedder, {
  topK: TOP_K,
  cache: idbVectorCache({ dbName: 'loopctl-extension' }),
  onProgress: (p) => showProgress(p.done, p.total, 'Embedding tools'),
});

let tools: readonly ToolSchema[] = DEMO_TOOLS;

function showProgress(done: number, total: number, label: string): void {
  progress.hidden = false;
  fill.style.width = total > 0 ? `${Math.round((done / total) * 100)}%` : '30%';
  status.textContent = `${label}… ${total > 0 ? Math.round((done / total) * 100) : 0}%`;
}

function storedTools(): readonly ToolSchema[] | undefined {
  const text = localStorage.getItem(STORAGE_KEY);
  if (!text) return undefined;
  const parsed = parseToolsFile(text);
  return parsed.ok ? parsed.tools : undefined;
}

/** Load (or embed) the corpus of the current tool list, recording where it came from. */
async function loadCorpus(): Promise<void> {
  const before = selector.stats;
  const started = performance.now();
  const scored = await selector.scoreTools(prompt.value || 'warm up', tools);
  if (!scored.ok) throw new Error(scored.reason);
  const after = selector.stats;
  const corpusEmbeds = after.corpusEmbeds - before.corpusEmbeds;
  state.corpus = {
    source: corpusEmbeds > 0 ? 'embedded' : after.cacheHits > before.cacheHits ? 'idb' : 'memory',
    corpusEmbeds,
    ms: performance.now() - started,
  };
  state.tools = tools.length;
  $('tool-count').textContent = String(tools.length);
}

/** Rank the tools for the prompt and render the top k. */
async function select(text: string): Promise<string[]> {
  const started = performance.now();
  const ctx = { turn: 1, latestUserMessage: text, conversation: [{ role: 'user' as const, content: text }] };
  const output = await selector.select(ctx, tools, { signal: new AbortController().signal });
  state.queryMs = performance.now() - started;
  const ranked = output.tools
    .map((tool) => ({ name: tool.name, score: output.reasons?.[tool.name]?.score ?? 0, description: tool.description }))
    .sort((a, b) => b.score - a.score);
  state.names = ranked.map((t) => t.name);
  state.scores = Object.fromEntries(ranked.map((t) => [t.name, t.score]));
  results.replaceChildren(
    ...ranked.map((t) => {
      const li = document.createElement('li');
      const name = document.createElement('b');
      name.textContent = t.name;
      const score = document.createElement('span');
      score.className = 'score';
      score.textContent = t.score.toFixed(3);
      const desc = document.createElement('small');
      desc.textContent = t.description;
      li.append(name, score, desc);
      return li;
    }),
  );
  if (output.fellOpen) status.textContent = `Fell open: ${output.fellOpen}`;
  else renderStatus();
  return state.names;
}

function renderStatus(): void {
  const corpus = state.corpus;
  const where =
    corpus?.source === 'idb'
      ? 'corpus from cache, 0 embedded'
      : corpus?.source === 'embedded'
        ? `embedded ${corpus.corpusEmbeds} tools`
        : 'corpus in memory';
  status.textContent = `${state.backend} · ${state.tools} tools · ${where} · query ${Math.round(state.queryMs ?? 0)} ms`;
}

async function start(): Promise<PopupState> {
  tools = storedTools() ?? DEMO_TOOLS;
  toolsBox.value = JSON.stringify(tools === DEMO_TOOLS ? DEMO_TOOLS.slice(0, 3) : tools, null, 2);
  const backend = await embedder.load();
  state.backend = backend.device === 'webgpu' ? 'WebGPU' : `WASM ×${backend.numThreads ?? 1}`;
  await loadCorpus();
  progress.hidden = true;
  await select(prompt.value);
  state.phase = 'ready';
  return state;
}

const ready = start();
ready.catch((error: unknown) => {
  state.phase = 'error';
  state.error = error instanceof Error ? error.message : String(error);
  status.textContent = `Error: ${state.error}`;
  status.classList.add('error');
});

($('form') as HTMLFormElement).addEventListener('submit', (event) => {
  event.preventDefault();
  void ready.then(() => select(prompt.value));
});

$('apply-tools').addEventListener('click', () => {
  const parsed = parseToolsFile(toolsBox.value);
  toolsError.hidden = parsed.ok;
  if (!parsed.ok) {
    toolsError.textContent = parsed.errors.join('\n');
    return;
  }
  localStorage.setItem(STORAGE_KEY, toolsBox.value);
  tools = parsed.tools;
  void ready.then(loadCorpus).then(() => select(prompt.value));
});

$('reset-tools').addEventListener('click', () => {
  localStorage.removeItem(STORAGE_KEY);
  tools = DEMO_TOOLS;
  toolsError.hidden = true;
  void ready.then(loadCorpus).then(() => select(prompt.value));
});

// Test hook, as on the demo page.
(window as unknown as { __loopctl: unknown }).__loopctl = { ready, state, select };
