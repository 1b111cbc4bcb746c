import { mergeOptions } from '../options.js';
import { assertTopK, DEFAULT_K, topK } from '../rank/top-k.js';
import { nameRecord } from '../registry/name-record.js';
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import type { Lexicon } from '../text/lexicon.js';
import { textTokens } from '../text/words.js';
import { withCore } from './apply-selection.js';
import { bm25Index } from './bm25.js';
import type { SelectionContext, SelectorOutput, ToolReason, ToolSelector } from './selector.js';

/** Options for {@link Bm25Selector}. */
export interface Bm25SelectorOptions {
  /** Tools advertised per turn. Default {@link DEFAULT_K}. */
  topK?: number;
  /** Tools unioned into every non-empty selection. */
  coreTools?: readonly string[];
  /** The language of prompts: its stopwords. Default: English. */
  lexicon?: Lexicon;
}

/**
 * Top-k BM25 over each tool's split name, description, and parameter names and descriptions:
 * the lexical tool search hosted APIs offer, and the baseline every other selector is
 * measured against. A query that matches no tool falls open to the full surface.
 *
 * @example
 * loop.withToolSelector(new Bm25Selector({ topK: 8 }))
 */
export class Bm25Selector implements ToolSelector {
  readonly name = 'bm25';
  readonly #options: Required<Omit<Bm25SelectorOptions, 'lexicon'>> & Bm25SelectorOptions;

  constructor(options: Bm25SelectorOptions = {}) {
    this.#options = mergeOptions({ topK: DEFAULT_K, coreTools: [] }, options);
    const { topK } = this.#options;
    assertTopK(topK);
  }

  /**
   * A copy with these options over this selector's, merged by \`mergeOptions\` (a key left
   * \`undefined\` keeps this selector's): the one way to derive a configured selector.
   *
   * @example
   * const narrow = selector.extend({ topK: 4 })
   */
  extend(options: Bm25SelectorOptions): Bm25Selector {
    return new Bm25Selector(mergeOptions(this.#options, options));
  }

  /** A copy advertising `k` tools per turn. */
  withTopK(k: number): Bm25Selector {
    return this.extend({ topK: k });
  }

  /** A copy that unions these tools into every non-empty selection. */
  withCoreTools(names: readonly string[]): Bm25Selector {
    return this.extend({ coreTools: [...this.#options.coreTools, ...names] });
  }

  /**
   * The `topK` best BM25 matches (registry order, core tools unioned in) with their scores, or
   * the full surface with `fellOpen` when no tool matches.
   *
   * @example
   * const { tools, reasons } = new Bm25Selector({ topK: 5 }).select(ctx, registry.schemas())
   */
  select(ctx: SelectionContext, all: readonly ToolSchema[]): SelectorOutput {
    const words = textTokens(ctx.latestUserMessage ?? '', this.#options.lexicon);
    if (words.length === 0) return { tools: all, fellOpen: 'the prompt has no words to match' };
    const scores = registrySnapshot(all).get(bm25Index).score(words);
    // Only tools that matched a word rank: a zero score is no evidence.
    const top = topK(scores, this.#options.topK).filter((i) => (scores[i] as number) > 0);
    if (top.length === 0) return { tools: all, fellOpen: 'no tool matched the prompt' };
    const reasons = nameRecord<ToolReason>();
    const chosen = top
      .sort((a, b) => a - b)
      .map((i) => {
        const tool = all[i] as ToolSchema;
        reasons[tool.name] = { score: scores[i] as number };
        return tool;
      });
    const core = new Set(this.#options.coreTools);
    for (const name of core) if (!reasons[name]) reasons[name] = { core: true };
    return { tools: withCore(chosen, all, core), reasons };
  }
}
