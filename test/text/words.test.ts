import { describe, expect, it } from 'vitest';
import { isToken, nameTokens, pushTextTokens, rawWords, splitName, textTokens } from '../../src/text/words.js';

// The reference definitions: lowercase, Unicode letter/number runs, camelCase split first.
const referenceRaw = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const referenceTokens = (text: string): string[] =>
  referenceRaw(text.replace(/([a-z0-9])([A-Z])/g, '$1 $2')).filter(isToken);

const samples = [
  'Get the weatherForecast for a city',
  'aBC a1B2C x9Y ABC HTMLParser getHTTPResponse',
  '__snake_case__ and kebab-case/path:segments',
  'tabs\tand\nnewlines, punctuation! (brackets) [x] {y} 3.14 v2 2024-01-01',
  'über Straße İstanbul naïve café 東京 weather',
  'emoji 🎉 between words🙂here',
  '',
  '   ',
];

describe('words', () => {
  it('the ASCII fast path gives exactly the Unicode reference', () => {
    for (const text of samples) {
      expect(rawWords(text), text).toEqual(referenceRaw(text));
      expect(textTokens(text), text).toEqual(referenceTokens(text));
      const out = ['kept'];
      pushTextTokens(text, out);
      expect(out, text).toEqual(['kept', ...referenceTokens(text)]);
    }
  });

  it('splits camelCase only at a lower-case letter or digit before an upper-case one', () => {
    expect(textTokens('getWeatherForecast')).toEqual(['weather', 'forecast']);
    expect(textTokens('parseHTTPResponse')).toEqual(['parse', 'httpresponse']);
    expect(textTokens('version2Release')).toEqual(['version2', 'release']);
  });

  it('name tokens are the split name filtered, and repeated names share one result', () => {
    expect(nameTokens('get_userProfile')).toEqual(splitName('get_userProfile').flatMap(rawWords).filter(isToken));
    expect(nameTokens('location')).toBe(nameTokens('location'));
  });
});
