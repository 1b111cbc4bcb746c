/**
 * The selectors the API offers by name, each built for a requested `k` and memoised, so a
 * busy worker reuses compiled synonym tables and the embedding selector's warm corpus.
 */
import type { Embedder } from '../src/embed/embedder.js';
import type { VectorCache } from '../src/embed/vector-cache.js';
import type { AsyncToolSelector, ToolSelector } from '../src/select/selector.js';
/** A selector ready to install on a loop: sync or async. */
export type InstallableSelector = {
    kind: 'sync';
    selector: ToolSelector;
} | {
    kind: 'async';
    selector: AsyncToolSelector;
};
/** Builds a named selector for a requested `k` (undefined: the selector's default). */
export type SelectorFactory = (k: number | undefined) => InstallableSelector | Promise<InstallableSelector>;
/** Where the embedding selector gets its model: an embedder, or a (lazy, async) factory. */
export type EmbedderSource = Embedder | (() => Embedder | Promise<Embedder>);
/** Options for {@link selectorTable}. */
export interface SelectorTableOptions {
    /** Enables `embedding`; without it that selector answers 503. */
    embedder?: EmbedderSource;
    /** Where corpus vectors persist (Workers KV, IndexedDB…). Default in memory. */
    vectorCache?: VectorCache;
    /** Default k for ranked selectors. Default 8. */
    defaultK?: number;
    /** Extra or replacement selectors (e.g. `hybrid`). */
    extra?: Readonly<Record<string, SelectorFactory>>;
    /** Called when the embedder fails to load (the response stays generic). */
    onError?: (error: unknown) => void;
}
/** The named selectors and a way to build one. */
export interface SelectorTable {
    readonly names: readonly string[];
    get(name: string, k: number | undefined): Promise<InstallableSelector>;
}
/**
 * The default table: `keyword`, `keyword-ranked`, `bm25`, `static`, `embedding`, `hybrid`.
 *
 * @example
 * const table = selectorTable({ embedder: () => loadEmbedder() })
 * const { selector } = await table.get('bm25', 5)
 */
export declare function selectorTable(options?: SelectorTableOptions): SelectorTable;
