import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/hono/redact-secrets.js';

const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5q';

describe('redactSecrets', () => {
  it('scrubs a secret whole, and its masked echoes (stars, an ellipsis, dots)', () => {
    expect(redactSecrets(`key ${KEY}.`, [KEY])).toBe(`key ${REDACTED}.`);
    for (const echo of ['sk-proj-****************Op5q', 'sk-p…Op5q', 'sk-proj-Ab...5q', '********Op5q']) {
      expect(redactSecrets(`Incorrect API key provided: ${echo}.`, [KEY]), echo).toBe(
        `Incorrect API key provided: ${REDACTED}.`,
      );
    }
  });

  it('leaves ordinary text, other masked values and short secrets alone', () => {
    const text = 'Wait... the value ****1234 and sk-other-****wxyz are not ours.';
    expect(redactSecrets(text, [KEY])).toBe(text);
    expect(redactSecrets('abc abc', ['abc'])).toBe('abc abc');
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
  });
});
