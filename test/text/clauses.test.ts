import { describe, expect, it } from 'vitest';
import { splitClauses, splitEnumeration } from '../../src/text/clauses.js';

describe('splitClauses', () => {
  it.each([
    [
      'Find the failing CI run in acme/webapp. Then grab the error from the logs and post it to #eng',
      ['Find the failing CI run in acme/webapp', 'grab the error from the logs', 'post it to #eng'],
    ],
    // A sequencing word alone does not split; a sentence end or a long "and" does.
    [
      'Find the failing CI run, then grab the error from the logs',
      ['Find the failing CI run, then grab the error from the logs'],
    ],
    [
      'Perform a Gaussian integral from -2 to 2. Also calculate the definite integral from 0 to 3.1416 of sin(x).',
      ['Perform a Gaussian integral from -2 to 2', 'calculate the definite integral from 0 to 3.1416 of sin(x)'],
    ],
    ['Open notes.txt; afterwards, count its lines', ['Open notes.txt', 'count its lines']],
    // A short side stays joined on a plain "and", whatever word follows it.
    ['Ack ALR-5531 and page the database on-call', ['Ack ALR-5531 and page the database on-call']],
    [
      'Close ticket 4415 and let #support-leads know the outage is resolved',
      ['Close ticket 4415 and let #support-leads know the outage is resolved'],
    ],
  ])('%j', (prompt, clauses) => {
    expect(splitClauses(prompt)).toEqual(clauses);
  });

  it('keeps single-intent prompts whole: short "and" lists, decimals, file names, "next" as an adjective', () => {
    for (const prompt of [
      'convert 10 dollars to euros',
      'compare cats and dogs',
      'find and replace the header',
      'list open tickets and alerts',
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
    expect(
      splitClauses('list the open pull requests and translate the release notes to German', {
        andMinWords: Infinity,
      }),
    ).toHaveLength(1);
  });
});

describe('splitEnumeration', () => {
  it('splits at the words that open each item and keeps an item whole across its sentences', () => {
    expect(
      splitEnumeration(
        "Could you help me with a few tasks? First, I'd like to book the 'Hilton' in Rome. I need 2 rooms. Second, what is the time difference between Oslo and Tokyo? Finally, calculate my BMI.",
      ),
    ).toEqual([
      'Could you help me with a few tasks',
      "I'd like to book the 'Hilton' in Rome. I need 2 rooms",
      'what is the time difference between Oslo and Tokyo',
      'calculate my BMI.',
    ]);
    expect(
      splitEnumeration('Find the failing CI run, then grab the error from the logs; also post it to #eng'),
    ).toEqual(['Find the failing CI run', 'grab the error from the logs', 'post it to #eng']);
  });

  it('is empty for a prompt that is not an enumeration', () => {
    for (const prompt of [
      'convert 10 dollars to euros',
      'wait a second then retry the upload',
      'Book the flight. Then pay',
      'what happened first in the second world war',
      '',
    ])
      expect(splitEnumeration(prompt), prompt).toEqual([]);
  });

  it('keeps at most maxItems items', () => {
    const prompt = Array.from({ length: 9 }, (_, i) => `Then open report number ${i}`).join('. ');
    expect(splitEnumeration(prompt, 3)).toEqual([
      'open report number 0',
      'open report number 1',
      'open report number 2',
    ]);
  });
});
