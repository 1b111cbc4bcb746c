import { describe, expect, it } from 'vitest';
import { splitClauses } from '../../src/text/clauses.js';

describe('splitClauses', () => {
  it.each([
    [
      'Find the failing CI run in acme/webapp, then grab the error from the logs and post it to #eng',
      ['Find the failing CI run in acme/webapp', 'grab the error from the logs', 'post it to #eng'],
    ],
    [
      'Perform a Gaussian integral from -2 to 2. Also calculate the definite integral from 0 to 3.1416 of sin(x).',
      ['Perform a Gaussian integral from -2 to 2', 'calculate the definite integral from 0 to 3.1416 of sin(x)'],
    ],
    ['Open notes.txt; afterwards, count its lines', ['Open notes.txt', 'count its lines']],
    ['Book the flight and after that reserve a hotel near the venue', ['Book the flight', 'reserve a hotel near the venue']],
  ])('%j', (prompt, clauses) => {
    expect(splitClauses(prompt)).toEqual(clauses);
  });

  it('keeps single-intent prompts whole: short "and" lists, decimals, file names, "next" as an adjective', () => {
    for (const prompt of [
      'convert 10 dollars to euros',
      'compare cats and dogs',
      'weather for the next 10 days in Oslo',
      'read summary.txt and notes.md',
      'pi is 3.14159 roughly',
    ]) {
      expect(splitClauses(prompt)).toEqual([prompt]);
    }
  });

  it('blank and odd input', () => {
    expect(splitClauses('')).toEqual([]);
    expect(splitClauses('   \n ')).toEqual([]);
    expect(splitClauses(undefined as never)).toEqual([]);
    expect(splitClauses('. ; .')).toEqual(['. ; .']);
  });

  it('never returns more than maxClauses, and a huge prompt is split in bounded time', () => {
    const many = Array.from({ length: 12 }, (_, i) => `step ${i} does thing ${i}`).join('. ');
    const clauses = splitClauses(many, { maxClauses: 3 });
    expect(clauses).toHaveLength(3);
    expect(clauses[2]).toContain('step 11');
    const huge = 'do this. '.repeat(100_000);
    expect(splitClauses(huge).length).toBeLessThanOrEqual(4);
  });

  it('a plain "and" splits only when both sides are long enough', () => {
    expect(splitClauses('list the open pull requests and translate the release notes to German')).toEqual([
      'list the open pull requests',
      'translate the release notes to German',
    ]);
    expect(splitClauses('list the open pull requests and translate the release notes to German', { andMinWords: Infinity })).toHaveLength(1);
  });
});
