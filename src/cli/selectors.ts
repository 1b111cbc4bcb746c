import { Bm25Selector } from '../select/bm25-selector.js';
import { KeywordSelector } from '../select/keyword-selector.js';
import { StaticSelector } from '../select/static-selector.js';
import type { AnySelector } from './evaluate.js';

/** What a CLI selector factory is given. */
export interface SelectorSpec {
  /** The ranked selectors' k (keyword-ranked: maxTools). */
  k: number;
}

type Factory = (spec: SelectorSpec) => AnySelector | Promise<AnySelector>;

/**
 * The selectors the CLI knows, by name. `k` applies to the ranked ones; the plain keyword
 * rule and static ignore it.
 */
export const SELECTOR_FACTORIES: Record<string, Factory> = {
  static: () => new StaticSelector(),
  keyword: () => new KeywordSelector(),
  'keyword-ranked': ({ k }) => new KeywordSelector().withMaxTools(k),
  bm25: ({ k }) => new Bm25Selector({ topK: k }),
};

/** Whether a selector's output size depends on k. */
export function usesK(name: string): boolean {
  return name !== 'static' && name !== 'keyword';
}

/** Build a selector by name, or throw listing the known names. */
export async function makeSelector(name: string, spec: SelectorSpec): Promise<AnySelector> {
  // Own keys only: "constructor" or "toString" are not selectors.
  const factory = Object.hasOwn(SELECTOR_FACTORIES, name) ? SELECTOR_FACTORIES[name] : undefined;
  if (!factory) {
    throw new Error(`unknown selector "${name}" (known: ${Object.keys(SELECTOR_FACTORIES).join(', ')})`);
  }
  return factory(spec);
}
