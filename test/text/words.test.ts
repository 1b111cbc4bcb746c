import { describe, expect, it } from 'vitest';
import { isToken, nameTokens, pushTextTokens, rawWords, splitName, textTokens, toolText } from '../../src/text/words.js';

// The reference definitions: lowercase, Unicode letter/number runs, camelCase split first.
const referenceRaw = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const referenceTokens = (text: string): string[] => referenceRaw(text.replace(/([a-z0-9])([A-Z])/g, '$1 $2')).filter(isToken);

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

  it('a tool text is the split name, the description, then parameter names with a few enum values', () => {
    expect(toolText('get_weather', 'Current weather.')).toBe('get weather: Current weather.');
    expect(toolText('get_weather', '')).toBe('get weather');
    const parameters = {
      type: 'object',
      properties: {
        cityName: { type: 'string', description: 'Left out: descriptions dilute the vector.' },
        unit: { enum: ['celsius', 'fahrenheit'] },
        day: { enum: [1, 2, 3, 4, 5, 6, 7, true] },
      },
    };
    expect(toolText('get_weather', 'Current weather.', parameters)).toBe(
      'get weather: Current weather. Parameters: city name; unit [celsius, fahrenheit]; day [1, 2, 3, 4, 5, 6].',
    );
    // No properties, or no schema at all: the text is as without parameters.
    for (const none of [undefined, null, 'object', { type: 'object' }, { type: 'object', properties: {} }, { properties: 3 }]) {
      expect(toolText('get_weather', 'Current weather.', none)).toBe('get weather: Current weather.');
    }
  });
});
