import { describe, expect, it } from 'vitest';
import { spellOutShorthand } from '../../src/text/shorthand.js';

describe('spellOutShorthand', () => {
  it('spells out each shorthand word beside itself, in any case', () => {
    expect(spellOutShorthand('DM priya that the build is green')).toBe(
      'DM (direct message) priya that the build is green',
    );
    expect(spellOutShorthand('Ack ALR-7710 and check the db.')).toBe(
      'Ack (acknowledge) ALR-7710 and check the db (database).',
    );
    expect(spellOutShorthand('How much PTO does Omar have?')).toBe('How much PTO (paid time off) does Omar have?');
  });

  it('leaves words that only contain shorthand, addresses, host names, paths and file names alone', () => {
    for (const text of [
      'Dmitry said hello',
      'mail info@acme.com',
      'restart db-replica-2',
      'open docs/config.yaml',
      'the acknowledgement came',
      'convert 10 dollars to euros',
    ])
      expect(spellOutShorthand(text)).toBe(text);
  });

  it('names a #channel as a channel; not a #number, an anchor or an entity', () => {
    expect(spellOutShorthand('let #support-leads know it is fixed')).toBe(
      'let #support-leads (channel) know it is fixed',
    );
    expect(spellOutShorthand('Add raj to #incident-2291.')).toBe('Add raj to #incident-2291 (channel).');
    for (const text of ['close ticket #4415', 'see docs/setup#install', 'R&#eacute;sum&eacute;', 'C# code', '##'])
      expect(spellOutShorthand(text)).toBe(text);
  });

  it('a non-string is empty text', () => {
    expect(spellOutShorthand(undefined as unknown as string)).toBe('');
  });
});
