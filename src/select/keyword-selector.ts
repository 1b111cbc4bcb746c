import { mergeOptions } from '../options.js';
import { assertTopK } from '../rank/top-k.js';
import { nameRecord } from '../registry/name-record.js';
import { registrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import type { Lexicon } from '../text/lexicon.js';
import type { PhrasePair, SynonymPair, SynonymTable } from '../text/synonyms.js';
import { expandQuery, lexiconSynonyms } from '../text/synonyms.js';
import { textTokens } from '../text/words.js';
import { withCore } from './apply-selection.js';
import { keywordIndex } from './lexical-index.js';
import type { SelectionContext, SelectorOutput, ToolReason, ToolSelector } from './selector.js';

/** Options for {@link KeywordSelector}. */
export interface KeywordSelectorOptions {
  /** Extra bidirectional pairs, added to the default table. */
  synonyms?: readonly SynonymPair[];
  /** Extra phrase pairs, added to the default table. */
  phrases?: readonly PhrasePair[];
  /** The language of prompts and tools: its stopwords and synonym table. Default: English. */
  lexicon?: Lexicon;
  /** Start from an empty table instead of the lexicon's. */
  noDefaultSynonyms?: boolean;
  /** Tools unioned into every non-empty selection. */
  coreTools?: readonly string[];
  /**
   * Ranked mode: keep only the best `topK` by IDF-weighted overlap.
   * Unset: the plain rule, any overlap selects.
   */
  topK?: number;
}

/**
 * Selects tools whose words overlap the run prompt's: lowercase words of three or more
 * characters, stopwords out, tool names split on `_ . - /` and camelCase. Synonyms expand the
 * query only. A total miss falls open to the full surface, because zero advertised tools
 * would strand a model that must act.
 *
 * @example
 * const selector = new KeywordSelector()
 *   .withSynonyms([['lint', 'check']])
 *   .withCoreTools(['Read', 'Write'])
 * const loop = new BareLoop({ client, registry }).withToolSelector(selector)
 */
export class KeywordSelector implements ToolSelector {
  readonly name: string = 'keyword';
  readonly #options: KeywordSelectorOptions &
    Required<Pick<KeywordSelectorOptions, 'synonyms' | 'phrases' | 'coreTools'>>;
  readonly #table: SynonymTable;
  readonly #core: ReadonlySet<string>;

  constructor(options: KeywordSelectorOptions = {}) {
    this.#options = mergeOptions({ synonyms: [], phrases: [], coreTools: [] }, options);
    const { synonyms, phrases, coreTools, topK: k, lexicon } = this.#options;
    this.#table = lexiconSynonyms(lexicon, synonyms, phrases, options.noDefaultSynonyms);
    this.#core = new Set(coreTools);
    if (k !== undefined) {
      assertTopK(k);
      this.name = 'keyword-ranked';
    }
  }

  /**
   * A copy with these options over this selector's, merged by \`mergeOptions\` (a key left
   * \`undefined\` keeps this selector's): the one way to derive a configured selector.
   *
   * @example
   * const narrow = selector.extend({ topK: 4, coreTools: ['Read'] })
   */
  extend(options: KeywordSelectorOptions): KeywordSelector {
    return new KeywordSelector(mergeOptions(this.#options, options));
  }

  /** A copy with more bidirectional synonym pairs. A pair that can never fire throws, naming it. */
  withSynonyms(pairs: readonly SynonymPair[]): KeywordSelector {
    return this.extend({ synonyms: [...this.#options.synonyms, ...pairs] });
  }

  /** A copy with more phrase pairs ("look up" → "search"), matched on word boundaries. */
  withPhrases(pairs: readonly PhrasePair[]): KeywordSelector {
    return this.extend({ phrases: [...this.#options.phrases, ...pairs] });
  }

  /** A copy that unions these tools into every non-empty selection and the fail-open surface. */
  withCoreTools(names: readonly string[]): KeywordSelector {
    return this.extend({ coreTools: [...this.#options.coreTools, ...names] });
  }

  /** A copy in ranked mode: IDF-weighted overlap, the best `k` kept. */
  withTopK(k: number): KeywordSelector {
    return this.extend({ topK: k });
  }

  /** The query words after expansion, for diagnostics and tests. */
  queryWords(prompt: string): string[] {
    return expandQuery(textTokens(prompt, this.#options.lexicon), prompt, this.#table);
  }

  /**
   * The tools whose words overlap the prompt's (registry order, core tools unioned in), with
   * the matched words and IDF scores, or the full surface with `fellOpen` on a total miss.
   *
   * @example
   * const { tools, reasons } = new KeywordSelector().select(ctx, registry.schemas())
   */
  select(ctx: SelectionContext, all: readonly ToolSchema[]): SelectorOutput {
    const prompt = ctx.latestUserMessage ?? '';
    const words = this.queryWords(prompt);
    const index = registrySnapshot(all).get(keywordIndex);

    const matched = new Map<number, string[]>();
    for (const word of words) {
      for (const toolIndex of index.postings.get(word) ?? []) {
        const list = matched.get(toolIndex);
        if (list) list.push(word);
        else matched.set(toolIndex, [word]);
      }
    }
    if (matched.size === 0) {
      return {
        tools: all,
        fellOpen: words.length === 0 ? 'the prompt has no words to match' : 'no tool matched the prompt',
      };
    }

    let picked = [...matched.keys()];
    const scores = new Map<number, number>();
    for (const [toolIndex, list] of matched) {
      scores.set(
        toolIndex,
        list.reduce((sum, word) => sum + index.idf(word), 0),
      );
    }
    const { topK } = this.#options;
    if (topK !== undefined && picked.length > topK) {
      picked = picked.sort((a, b) => (scores.get(b) as number) - (scores.get(a) as number) || a - b).slice(0, topK);
    }

    const reasons = nameRecord<ToolReason>();
    const chosen: ToolSchema[] = [];
    for (const toolIndex of picked.sort((a, b) => a - b)) {
      const tool = all[toolIndex] as ToolSchema;
      chosen.push(tool);
      reasons[tool.name] = { score: scores.get(toolIndex) as number, matched: matched.get(toolIndex) as string[] };
    }
    for (const name of this.#core) if (!reasons[name]) reasons[name] = { core: true };
    return { tools: withCore(chosen, all, this.#core), reasons };
  }
}
