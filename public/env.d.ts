/// <reference types="vite/client" />

interface Window {
  /** The demo's test hook (see public/state.ts). */
  __loopctl?: import('./state.js').LoopctlHook;
}
