/**
 * Grep's own reading of JavaScript regular expressions, checked against the engine: for each
 * pattern and line, the linear matcher answers what `RegExp.test` answers (with the `u` flag
 * when the pattern allows it, as Grep checks it).
 */
import { describe, expect, it } from 'vitest';
import { LinearMatcher } from '../../src/file-tools/linear-matcher.js';
import { PatternBudget } from '../../src/file-tools/pattern-budget.js';
import { compileProgram, requiredText } from '../../src/file-tools/pattern-nfa.js';
import { parseRegex, RegexFeatureError } from '../../src/file-tools/regex-syntax.js';

const budget = () => new PatternBudget(Number.MAX_SAFE_INTEGER, new AbortController().signal, 'Grep');

function engineFlags(pattern: string, flags: string): string {
  try {
    new RegExp(pattern, `${flags}u`);
    return `${flags}u`;
  } catch {
    return flags;
  }
}

function linear(pattern: string, flags: string) {
  const tree = parseRegex(pattern, {
    unicode: engineFlags(pattern, flags).includes('u'),
    ignoreCase: flags.includes('i'),
  });
  return new LinearMatcher(compileProgram(tree, 100_000, 'the pattern'), false);
}

const CASES: [pattern: string, flags: string, lines: string[]][] = [
  ['abc', '', ['abc', 'xabcx', 'ab', '']],
  ['^abc$', '', ['abc', 'abcd', 'xabc']],
  ['a|b', '', ['a', 'c', 'b']],
  ['colou?r', '', ['color', 'colour', 'colouur']],
  ['\\bfoo\\b', '', ['foo', 'a foo b', 'foobar', 'xfoo']],
  ['\\Bfoo', '', ['foo', 'xfoo']],
  ['x{2,3}$', '', ['x', 'xx', 'xxx', 'xxxx']],
  ['^x{2,3}$', '', ['x', 'xx', 'xxx', 'xxxx']],
  ['^x{2,}$', '', ['x', 'xx', 'xxxxxxx']],
  ['^(?:ab){0}c', '', ['c', 'abc']],
  ['[a-c]+d', '', ['abcd', 'd', 'xd', 'cd']],
  ['[^a-c]', '', ['abc', 'abcd']],
  ['\\d+\\.\\d', '', ['1.2', 'a.b', '12.']],
  ['todo', 'i', ['TODO', 'ToDo', 'done']],
  ['[A-Z]', 'i', ['a', '1']],
  ['[^a]', 'i', ['A', 'b']],
  ['.', '', ['\r', '', 'a', '😀']],
  ['^.$', '', ['😀', 'ab']],
  ['\\s\\S', '', [' a', '  ', 'a ']],
  ['\\w+\\W', '', ['ab!', 'ab']],
  ['(a+)+$', '', ['aaab', 'aaa']],
  ['function\\s+parseConfig', '', ['export function parseConfig(x)', 'functionparseConfig']],
  ['\\-x', '', ['-x', 'x']],
  ['a{', '', ['a{', 'a']],
  ['a{,2}', '', ['a{,2}', 'aa']],
  ['[\\d-x]', '', ['-', '5', 'x', 'q']],
  ['\\x41\\u0042', '', ['AB', 'ab']],
  ['\\u{1F600}', '', ['😀', 'x']],
  ['\\uD83D\\uDE00', '', ['😀', 'x']],
  ['(?:ab)*c$', '', ['ababc', 'abac']],
  ['(?<name>a)b', '', ['ab', 'a']],
  ['a*?b', '', ['aab', 'c']],
  ['^$', '', ['', 'a']],
  ['$', '', ['anything']],
  ['[]', '', ['a', '']],
  ['[^]', '', ['a', '']],
  ['PNG|caf', '', ['café', 'xPNG']],
  ['[\\W\\d]', '', ['a', '1', '!']],
  ['\\0', '', ['\0', '0']],
  ['\\cJ', '', ['\n', 'c']],
  ['\\101', '', ['A', '101']],
  ['[\\b]', '', ['\b', 'b']],
  ['\\/\\.', '', ['/.', 'a']],
  ['é+', 'i', ['É', 'e']],
];

describe('the linear matcher agrees with RegExp', () => {
  it.each(CASES)('/%s/%s', (pattern, flags, lines) => {
    const matcher = linear(pattern, flags);
    const engine = new RegExp(pattern, engineFlags(pattern, flags));
    for (const line of lines) expect(matcher.test(line, budget()), JSON.stringify(line)).toBe(engine.test(line));
  });
});

describe('what needs backtracking is refused by name', () => {
  it.each([
    ['(a)\\1', /back-references/],
    ['(?<n>a)\\k<n>', /back-references/],
    ['(?=a)', /lookahead and lookbehind/],
    ['(?!a)', /lookahead and lookbehind/],
    ['(?<=a)b', /lookahead and lookbehind/],
    ['(?<!a)b', /lookahead and lookbehind/],
    ['\\p{L}', /Unicode property escapes/],
  ])('%s', (pattern, message) => {
    expect(() => linear(pattern, '')).toThrow(RegexFeatureError);
    expect(() => linear(pattern, '')).toThrow(message);
  });
});

describe('the literal text every match needs', () => {
  it.each([
    ['function\\s+parseConfig', 'parseConfig'],
    ['(?:abc)d|x', undefined],
    ['a.bc', 'bc'],
    ['\\d+', undefined],
  ])('%s → %s', (pattern, expected) => {
    expect(requiredText(parseRegex(pattern, { unicode: true, ignoreCase: false }))).toBe(expected);
  });

  it('none with ignore_case', () => {
    expect(requiredText(parseRegex('abc', { unicode: true, ignoreCase: true }))).toBeUndefined();
  });
});

describe('the budget', () => {
  it('counts a few steps a character once the states are known, and stops past its limit', () => {
    const matcher = linear('needle\\d', '');
    const counted = budget();
    matcher.test('x'.repeat(10_000), counted);
    expect(counted.used).toBeGreaterThanOrEqual(10_000);
    expect(counted.used).toBeLessThan(50_000);
    const small = new PatternBudget(5_000, new AbortController().signal, 'Grep');
    expect(() => matcher.test('x'.repeat(10_000), small)).toThrow(/pattern too expensive: .*5,000 steps/);
  });

  it('a pattern over maxPatternStates is refused before matching', () => {
    expect(() =>
      compileProgram(parseRegex('(?:x{1000}){1000}', { unicode: true, ignoreCase: false }), 100_000, 'the pattern'),
    ).toThrow(/pattern too expensive: the pattern needs over 100000 states/);
  });
});
