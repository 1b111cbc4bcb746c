import { describe, expect, it } from 'vitest';
import {
  assertPhrasePair,
  assertSynonymPair,
  compileSynonyms,
  DEFAULT_PHRASES,
  DEFAULT_SYNONYMS,
  expandQuery,
} from '../../src/text/synonyms.js';
import { textTokens } from '../../src/text/words.js';

const expand = (query: string, table = compileSynonyms(DEFAULT_SYNONYMS, DEFAULT_PHRASES)) =>
  expandQuery(textTokens(query), query, table);

describe('the curated default table', () => {
  it.each([
    ['check', 'verify'],
    ['check', 'search'],
    ['open', 'read'],
    ['show', 'read'],
    ['view', 'read'],
    ['fix', 'edit'],
    ['change', 'edit'],
  ])('"%s" reaches "%s"', (word, target) => {
    expect(expand(word)).toContain(target);
  });

  it('every default pair is a legal pair (each side can fire)', () => {
    for (const pair of DEFAULT_SYNONYMS) expect(() => assertSynonymPair(pair)).not.toThrow();
    for (const pair of DEFAULT_PHRASES) expect(() => assertPhrasePair(pair)).not.toThrow();
  });
});

describe('compileSynonyms / expandQuery', () => {
  it('pairs are bidirectional', () => {
    const table = compileSynonyms([['lint', 'audit']]);
    expect(expandQuery(['lint'], 'lint', table)).toEqual(['lint', 'audit']);
    expect(expandQuery(['audit'], 'audit', table)).toEqual(['audit', 'lint']);
  });

  it('expands one hop only, keeps the original words first and drops duplicates', () => {
    const table = compileSynonyms([
      ['lint', 'audit'],
      ['audit', 'review'],
    ]);
    expect(expandQuery(['review'], 'review', table)).toEqual(['review', 'audit']);
    expect(expandQuery(['lint', 'audit'], 'lint audit', table)).toEqual(['lint', 'audit', 'review']);
  });

  it('a word with no pair expands to itself', () => {
    expect(expandQuery(['weather'], 'weather', compileSynonyms([['lint', 'audit']]))).toEqual(['weather']);
  });

  describe('phrase pairs match on word boundaries', () => {
    const table = compileSynonyms([], [['look up', 'search']]);
    const fires = (query: string) => expandQuery(textTokens(query), query, table).includes('search');

    it.each(['look up the price', 'Please LOOK   UP a word', 'can you look up?', 'look\nup'])('"%s" fires', (query) => {
      expect(fires(query)).toBe(true);
    });

    it.each(['look upon the sea', 'overlook up there', 'lookup a word', 'look-up table', 'look at it, up there'])(
      '"%s" does not fire',
      (query) => {
        expect(fires(query)).toBe(false);
      },
    );
  });
});

describe('pairs that can never fire are rejected, naming the pair', () => {
  it.each([
    [['ls', 'list'], /\["ls", "list"\].*"ls".*shorter than three/],
    [['find', 'go'], /\["find", "go"\].*"go".*shorter than three/],
    [['the', 'file'], /\["the", "file"\].*"the".*stopword/],
    [['grep', 'for'], /"for".*stopword/],
    [['look up', 'search'], /\["look up", "search"\].*"look up".*single word/],
    [['read', 'read-only'], /"read-only".*single word/],
  ] as const)('%j', (pair, message) => {
    expect(() => assertSynonymPair(pair)).toThrow(message);
    expect(() => compileSynonyms([pair])).toThrow(message);
  });

  it('rejects something that is not a pair at all', () => {
    expect(() => assertSynonymPair(['lint'] as never)).toThrow(/must be \[word, word\]/);
    expect(() => assertSynonymPair(['lint', 5] as never)).toThrow(/not a string/);
  });

  it('rejects a phrase of one word, and a phrase whose target can never fire', () => {
    expect(() => assertPhrasePair(['lookup', 'search'])).toThrow(/\["lookup", "search"\].*two or more words/);
    expect(() => assertPhrasePair(['look up', 'it'])).toThrow(/\["look up", "it"\].*shorter than three/);
    expect(() => assertPhrasePair(['look up', 'the'])).toThrow(/stopword/);
  });

  it('accepts three-character words and non-ASCII words', () => {
    expect(() => assertSynonymPair(['sql', 'query'])).not.toThrow();
    expect(() => assertSynonymPair(['météo', 'weather'])).not.toThrow();
  });
});
