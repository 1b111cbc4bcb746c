import type { ToolSchema } from './schema.js';

/**
 * A derived index of a tool list: a pure function of the snapshot (its tools, and other
 * derived indexes through `get`). Declare one at module level, so its identity names it.
 */
export type Derivation<T> = (snapshot: RegistrySnapshot) => T;

/**
 * One registry generation and what the selectors derive from it (token sets, BM25, name words,
 * actions…), each built on first use and kept as long as the list lives.
 */
export interface RegistrySnapshot {
  readonly tools: readonly ToolSchema[];
  /** The derived index `derive` of this list, built once. */
  get<T>(derive: Derivation<T>): T;
  /**
   * Give `derive` a value derived elsewhere (shipped with a vectors file, checked against this
   * list) instead of building it; one already built is kept.
   */
  seed<T>(derive: Derivation<T>, value: T): void;
}

// Keyed by the list itself: a registry publishes one frozen list per generation, so a new
// generation is a new snapshot and an old one goes with its list.
const snapshots = new WeakMap<readonly ToolSchema[], RegistrySnapshot>();

/**
 * The snapshot of a tool list (the same object for the same list).
 *
 * @example
 * const toolNames: Derivation<string[]> = ({ tools }) => tools.map((tool) => tool.name)
 * registrySnapshot(registry.schemas()).get(toolNames) // built once for this list
 */
export function registrySnapshot(tools: readonly ToolSchema[]): RegistrySnapshot {
  let snapshot = snapshots.get(tools);
  if (!snapshot) {
    const derived = new Map<Derivation<unknown>, unknown>();
    const made: RegistrySnapshot = {
      tools,
      get<T>(derive: Derivation<T>): T {
        if (derived.has(derive)) return derived.get(derive) as T;
        const value = derive(made);
        derived.set(derive, value);
        return value;
      },
      seed<T>(derive: Derivation<T>, value: T): void {
        if (!derived.has(derive)) derived.set(derive, value);
      },
    };
    snapshot = made;
    snapshots.set(tools, made);
  }
  return snapshot;
}

/**
 * A family of derivations, one per key (a lexicon, a stemmer): the same key gives the same
 * derivation, so selectors that read a list with one lexicon share what is derived with it.
 *
 * @example
 * const stems = derivationPer((stem: (word: string) => string) => ({ tools }) => tools.map((t) => stem(t.name)))
 * registrySnapshot(all).get(stems(englishStem))
 */
export function derivationPer<K extends object, T>(make: (key: K) => Derivation<T>): (key: K) => Derivation<T> {
  const made = new WeakMap<K, Derivation<T>>();
  return (key) => {
    let derive = made.get(key);
    if (!derive) {
      derive = make(key);
      made.set(key, derive);
    }
    return derive;
  };
}
