/**
 * The page's observable state and the test hook on `window.__loopctl`. Tests (and the
 * screenshot and benchmark scripts) wait on `ready`, then read `state` or call the helpers;
 * the page itself renders from the same object, so what a test reads is what a user sees.
 */
import type { UseLiteBackend, UseLiteDevice, UseLiteDtype } from '../src/adapters/use-lite.js';
import type { CorpusInfo, EngineProgress, SelectorResult } from './engine.js';

/** Everything the page shows, as plain data. */
export interface DemoState {
  phase: 'starting' | 'loading-model' | 'embedding-corpus' | 'ready' | 'error';
  error?: string;
  /** COOP/COEP took effect, so onnxruntime-web may use threads. */
  crossOriginIsolated: boolean;
  requested: { device: UseLiteDevice; dtype: UseLiteDtype };
  backend?: UseLiteBackend;
  /** The WebGPU adapter's vendor/architecture, when the backend is WebGPU. */
  adapter?: string;
  progress?: EngineProgress;
  registry: { source: 'demo' | 'file'; label: string; count: number; tokens: number };
  /** The last corpus load (after a reload: `source: 'idb'`, `corpusEmbeds: 0`). */
  corpus?: CorpusInfo;
  /** Corpus texts embedded since the page loaded, across every tool list. */
  corpusEmbedsTotal: number;
  k: number;
  prompt: string;
  results: SelectorResult[];
  /** Completed selection passes; tests wait for it to move. */
  selections: number;
  hybrid: boolean;
}

/** The hook installed on `window.__loopctl`. */
export interface LoopctlHook {
  /** Resolves once the model, the corpus and the first selection are done (rejects on a load error). */
  readonly ready: Promise<DemoState>;
  readonly state: DemoState;
  /** Run every selector on a prompt (also updates the page). */
  select(prompt: string): Promise<SelectorResult[]>;
  /** Embed texts directly, returning the call's wall time in ms (for benchmarks). */
  timeEmbed(texts: readonly string[]): Promise<number>;
  /** Load a tools file's text as the registry; resolves with the errors, if any. */
  loadToolsText(text: string, label?: string): Promise<readonly string[]>;
}

/** A fresh state for the requested backend. */
export function initialState(device: UseLiteDevice, dtype: UseLiteDtype, k: number): DemoState {
  return {
    phase: 'starting',
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    requested: { device, dtype },
    registry: { source: 'demo', label: 'demo registry', count: 0, tokens: 0 },
    corpusEmbedsTotal: 0,
    k,
    prompt: '',
    results: [],
    selections: 0,
    hybrid: false,
  };
}
