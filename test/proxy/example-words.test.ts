/** The learning guard's rule: a prompt is like the examples when it shares one of their words. */
import { describe, expect, it } from 'vitest';
import { likeAnExample } from '../../src/hono/proxy/learn/example-words.js';

const examples = [
  { key: 'a', query: 'Sort out the usual thing for the Oslo office', tools: ['t'], at: 0 },
  { key: 'b', query: 'Refund the last invoice', tools: ['u'], at: 1 },
];

describe('likeAnExample', () => {
  it('is true for a prompt sharing a word with any example, stopwords and case aside', () => {
    expect(likeAnExample('what about OSLO', examples)).toBe(true);
    expect(likeAnExample('an invoice please', examples)).toBe(true);
  });

  it('is false for a prompt sharing only stopwords, or no prompt', () => {
    expect(likeAnExample('the and for', examples)).toBe(false);
    expect(likeAnExample('Create a Jira ticket', examples)).toBe(false);
    expect(likeAnExample(undefined, examples)).toBe(false);
  });
});
