import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import type { SelectionContext } from '../../src/select/selector.js';

const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: {} },
});

const ctx = (prompt: string | undefined, extra: Partial<SelectionContext> = {}): SelectionContext => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: prompt === undefined ? [] : [{ role: 'user', content: prompt }],
  ...extra,
});

/** Names a selector advertises for a prompt, after the selection contract. */
const pick = (selector: KeywordSelector, all: readonly ToolSchema[], prompt: string | undefined) =>
  applySelection(selector.select(ctx(prompt), all), all);
const names = (selector: KeywordSelector, all: readonly ToolSchema[], prompt: string | undefined) =>
  pick(selector, all, prompt).names;

// Descriptions avoid the default synonym table's words unless a test is about the table.
const surface: readonly ToolSchema[] = [
  tool('read_file', 'Read a text file from disk.'), // read file text disk
  tool('edit_file', 'Apply a patch to an existing document.'), // edit file apply patch existing document
  tool('grep_search', 'Search contents by regular expression.'), // grep search contents regular expression
  tool('verify_token', 'Verify an auth token.'), // verify token auth
  tool('get_weather', 'Current weather conditions for the city.'), // weather current conditions city
  tool('db_query', 'Run SQL against the database.'), // query run sql database
  tool('web.fetch-page/v2', 'Download over HTTP.'), // web fetch page download http
  tool('parseXMLDocument', 'Turn markup into a tree.'), // parse xml document turn markup tree
];
const all = surface.map((t) => t.name);
const plain = new KeywordSelector();

describe('KeywordSelector: tokenising', () => {
  it('matches lowercase words: case in the prompt does not matter', () => {
    expect(names(plain, surface, 'WEATHER in Paris')).toEqual(['get_weather']);
    expect(names(plain, surface, 'Weather In Paris')).toEqual(['get_weather']);
  });

  it('words of three characters count ("sql")', () => {
    expect(names(plain, surface, 'sql')).toEqual(['db_query']);
  });

  it('words under three characters never match, even when a tool name holds them ("db", "v2")', () => {
    const db = pick(plain, surface, 'db v2');
    expect(db.fellOpen).toBe('the prompt has no words to match');
    expect(db.names).toEqual(all);
  });

  it('splits names on "_", ".", "-", "/"', () => {
    expect(names(plain, surface, 'db query')).toEqual(['db_query']);
    expect(names(plain, surface, 'the web')).toEqual(['web.fetch-page/v2']);
    expect(names(plain, surface, 'fetch')).toEqual(['web.fetch-page/v2']);
    expect(names(plain, surface, 'page')).toEqual(['web.fetch-page/v2']);
  });

  it('splits camelCase names, acronyms included', () => {
    expect(names(plain, surface, 'xml')).toEqual(['parseXMLDocument']);
    expect(names(plain, surface, 'parse it')).toEqual(['parseXMLDocument']);
    // "document" also sits in edit_file's description: both hold the word.
    expect(names(plain, surface, 'document')).toEqual(['edit_file', 'parseXMLDocument']);
  });

  it('the unsplit name is not a word: "parsexmldocument" matches nothing', () => {
    expect(pick(plain, surface, 'parsexmldocument').fellOpen).toBe('no tool matched the prompt');
  });

  it('stopwords drop out: "the" in the prompt cannot select tools whose descriptions say "the"', () => {
    // get_weather and db_query both say "the"; only the weather tool shares a real word.
    expect(names(plain, surface, 'the weather')).toEqual(['get_weather']);
    expect(names(plain, surface, 'for the weather')).toEqual(['get_weather']);
    const onlyStopwords = pick(plain, surface, 'the for and with');
    expect(onlyStopwords.fellOpen).toBe('the prompt has no words to match');
  });

  it("the query words are the prompt's words of three or more characters, minus stopwords", () => {
    const bare = new KeywordSelector({ noDefaultSynonyms: true });
    expect(bare.queryWords('Get me the Weather for Oslo, please: is it wet?')).toEqual(['weather', 'oslo', 'wet']);
    expect(bare.queryWords('getWeatherNow')).toEqual(['weather', 'now']);
  });
});

describe('KeywordSelector: the selection rule', () => {
  it('any single overlapping word selects; results come in registry order', () => {
    expect(names(plain, surface, 'text')).toEqual(['read_file']);
    expect(names(plain, surface, 'sql weather file')).toEqual(['read_file', 'edit_file', 'get_weather', 'db_query']);
  });

  it('reports the matched words as the reason', () => {
    const output = plain.select(ctx('weather in the city of Oslo'), surface);
    expect(output.reasons?.get_weather?.matched).toEqual(['weather', 'city']);
    expect(output.fellOpen).toBeUndefined();
  });

  it('a total miss falls open to the full surface, saying why', () => {
    const output = plain.select(ctx('schedule lunch tomorrow'), surface);
    expect(output.tools.map((t) => t.name)).toEqual(all);
    expect(output.fellOpen).toBe('no tool matched the prompt');
  });

  it('no prompt at all falls open too', () => {
    expect(pick(plain, surface, undefined)).toMatchObject({ names: all, fellOpen: 'the prompt has no words to match' });
    expect(pick(plain, surface, '').fellOpen).toBeDefined();
  });

  it('an empty registry gives an empty selection', () => {
    expect(plain.select(ctx('weather'), []).tools).toEqual([]);
  });

  it('is deterministic: the same context gives the same selection', () => {
    const first = plain.select(ctx('check the weather and open a file'), surface);
    const again = plain.select(ctx('check the weather and open a file'), surface);
    const fresh = new KeywordSelector().select(ctx('check the weather and open a file'), [...surface]);
    expect(again).toEqual(first);
    expect(fresh).toEqual(first);
  });

  it('matches latestUserMessage, never the conversation (tool results, later turns)', () => {
    const context: SelectionContext = {
      turn: 4,
      latestUserMessage: 'weather in Oslo',
      conversation: [
        { role: 'user', content: 'weather in Oslo' },
        { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 'grep_search', arguments: '{}' }] },
        { role: 'tool', toolCallId: '1', name: 'grep_search', content: 'read the file, run sql on the database' },
        { role: 'user', content: 'now fetch the page and parse the xml' },
      ],
    };
    expect(plain.select(context, surface).tools.map((t) => t.name)).toEqual(['get_weather']);
  });
});

describe('KeywordSelector: synonyms', () => {
  const lintSurface = [
    tool('inspect_code', 'Report style problems in source.'),
    tool('format_code', 'Pretty-print source.'),
    tool('deploy', 'Ship the build to production.'),
  ];

  it('withSynonyms expands the query: "lint" reaches a tool that says "inspect"', () => {
    expect(pick(plain, lintSurface, 'lint my module').fellOpen).toBeDefined();
    const selector = plain.withSynonyms([['lint', 'inspect']]);
    expect(names(selector, lintSurface, 'lint my module')).toEqual(['inspect_code']);
  });

  it('pairs are bidirectional: the right side reaches the left too', () => {
    const surface = [tool('lint_code', 'Report style problems in source.'), tool('deploy', 'Ship the build.')];
    const selector = plain.withSynonyms([['lint', 'inspect']]);
    expect(pick(plain, surface, 'inspect my module').fellOpen).toBeDefined();
    expect(names(selector, surface, 'inspect my module')).toEqual(['lint_code']);
  });

  it('expansion is query-side only: a tool word is never expanded', () => {
    // "review" expands to "audit" (one hop, query side). Were tools expanded, lint_code's "lint"
    // would gain "audit" and match too.
    const selector = plain.withSynonyms([
      ['lint', 'audit'],
      ['audit', 'review'],
    ]);
    const surface = [tool('lint_code', 'Lint source.'), tool('audit_trail', 'Past events.'), tool('deploy', 'Ship.')];
    expect(selector.queryWords('review')).toEqual(['review', 'audit']);
    expect(names(selector, surface, 'review')).toEqual(['audit_trail']);
  });

  it('withSynonyms adds to earlier pairs and returns a copy', () => {
    const one = plain.withSynonyms([['lint', 'inspect']]);
    const two = one.withSynonyms([['ship', 'deploy']]);
    expect(two.queryWords('lint ship')).toEqual(['lint', 'ship', 'inspect', 'deploy']);
    expect(one.queryWords('lint ship')).toEqual(['lint', 'ship', 'inspect']);
    expect(plain.queryWords('lint ship')).toEqual(['lint', 'ship']);
  });

  it.each([
    [['ls', 'list'], /"ls".*shorter than three/],
    [['the', 'file'], /"the".*stopword/],
    [['lint', 'with'], /"with".*stopword/],
    [['dry run', 'simulate'], /"dry run".*single word/],
  ] as const)('a pair that can never fire, %j, is rejected at construction, naming it', (pair, message) => {
    expect(() => plain.withSynonyms([pair])).toThrow(message);
    expect(() => new KeywordSelector({ synonyms: [pair] })).toThrow(message);
    expect(() => plain.withSynonyms([pair])).toThrow(`["${pair[0]}", "${pair[1]}"]`);
  });

  describe('the curated default table', () => {
    it.each([
      ['check it', ['grep_search', 'verify_token']],
      ['open it', ['read_file']],
      ['show it', ['read_file']],
      ['view it', ['read_file']],
      ['fix it', ['edit_file']],
      ['change it', ['edit_file']],
    ])('"%s" advertises %j', (prompt, expected) => {
      expect(names(plain, surface, prompt)).toEqual(expected);
    });

    it('is what reaches them: with no default table the same prompts fall open', () => {
      const bare = new KeywordSelector({ noDefaultSynonyms: true });
      for (const prompt of ['check it', 'open it', 'fix it']) {
        expect(pick(bare, surface, prompt).fellOpen).toBe('no tool matched the prompt');
      }
    });

    it('"look up" reaches search on word boundaries; "look upon" never fires', () => {
      expect(names(plain, surface, 'look up the weather')).toEqual(['grep_search', 'get_weather']);
      expect(names(plain, surface, 'look upon the weather')).toEqual(['get_weather']);
      expect(names(plain, surface, 'overlook up the weather')).toEqual(['get_weather']);
    });

    it('withPhrases adds a phrase pair', () => {
      const selector = plain.withPhrases([['sign off', 'verify']]);
      expect(pick(plain, surface, 'please sign off on this').fellOpen).toBeDefined();
      expect(names(selector, surface, 'please sign off on this')).toEqual(['verify_token']);
      expect(pick(selector, surface, 'sign offline copies').fellOpen).toBeDefined();
    });
  });
});

describe('KeywordSelector: core tools', () => {
  const core = plain.withCoreTools(['read_file', 'db_query']);

  it('unions core tools into every non-empty selection, in registry order', () => {
    const selection = pick(core, surface, 'weather');
    expect(selection.names).toEqual(['read_file', 'get_weather', 'db_query']);
    expect(selection.reasons.read_file).toEqual({ core: true });
    expect(selection.reasons.get_weather?.matched).toEqual(['weather']);
  });

  it('a core tool that also matched keeps its match as the reason', () => {
    const selection = pick(core, surface, 'sql weather');
    expect(selection.names).toEqual(['read_file', 'get_weather', 'db_query']);
    expect(selection.reasons.db_query?.matched).toEqual(['sql']);
  });

  it('composes with fail-open: a total miss still serves the full surface, core included', () => {
    const selection = pick(core, surface, 'schedule lunch');
    expect(selection.names).toEqual(all);
    expect(selection.fellOpen).toBe('no tool matched the prompt');
  });

  it('ignores core names the registry does not hold', () => {
    expect(names(plain.withCoreTools(['ghost']), surface, 'weather')).toEqual(['get_weather']);
  });

  it('withCoreTools accumulates across calls', () => {
    const more = core.withCoreTools(['verify_token']);
    expect(names(more, surface, 'weather')).toEqual(['read_file', 'verify_token', 'get_weather', 'db_query']);
  });
});

describe('KeywordSelector: ranked mode (withTopK)', () => {
  // "file" is common (three tools hold it); "archive" and "disk" are rare (one tool each).
  const ranked: readonly ToolSchema[] = [
    tool('zip_archive', 'Compress folders into an archive.'),
    tool('read_file', 'Read a text file from disk.'),
    tool('write_file', 'Write text into a file.'),
    tool('edit_file', 'Patch a file in place.'),
    tool('get_weather', 'Current weather conditions.'),
  ];

  it('a rare-word match beats a common-word match', () => {
    expect(names(plain.withTopK(1), ranked, 'archive file')).toEqual(['zip_archive']);
  });

  it('keeps the best n by IDF-weighted overlap and returns them in registry order', () => {
    // read_file: file + disk (common + rare) outranks zip_archive: archive (rare) alone; both beat
    // write_file and edit_file (file only).
    const output = plain.withTopK(2).select(ctx('archive the file to disk'), ranked);
    const selection = applySelection(output, ranked);
    expect(selection.names).toEqual(['zip_archive', 'read_file']);
    expect(selection.reasons.read_file!.score!).toBeGreaterThan(selection.reasons.zip_archive!.score!);
  });

  it('weights by rarity: idf(word) = ln(1 + (N − df + 0.5) / (df + 0.5)), summed over matched words', () => {
    const idf = (df: number) => Math.log(1 + (ranked.length - df + 0.5) / (df + 0.5));
    const reasons = plain.withTopK(5).select(ctx('archive the file to disk'), ranked).reasons!;
    expect(reasons.zip_archive?.score).toBeCloseTo(idf(1), 10);
    expect(reasons.read_file?.score).toBeCloseTo(idf(3) + idf(1), 10);
    expect(reasons.write_file?.score).toBeCloseTo(idf(3), 10);
  });

  it('does not cut when n or fewer tools match, and still falls open on a total miss', () => {
    expect(names(plain.withTopK(3), ranked, 'weather')).toEqual(['get_weather']);
    expect(pick(plain.withTopK(3), ranked, 'lunch').names).toHaveLength(ranked.length);
  });

  it('the plain rule keeps every match', () => {
    expect(names(plain, ranked, 'archive file')).toEqual(['zip_archive', 'read_file', 'write_file', 'edit_file']);
  });

  it('rejects a max that is not a positive integer', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => plain.withTopK(n)).toThrow(RangeError);
  });

  it('names itself keyword-ranked', () => {
    expect(plain.name).toBe('keyword');
    expect(plain.withTopK(3).name).toBe('keyword-ranked');
  });
});
