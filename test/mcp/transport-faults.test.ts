/**
 * The MCP rows of docs/fault-matrix.md name real tests: every file a row cites exists and
 * holds the test it quotes, so the table cannot point at a test that was renamed or removed.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { TRANSPORT_FAULTS } from './transport-faults.js';

const root = new URL('../../', import.meta.url);

it.each(TRANSPORT_FAULTS.map((row) => [row.fault, row.test] as const))('%s: the cited test exists', (_fault, test) => {
  const files = [...test.matchAll(/`([^`]+\.test\.ts)`/g)].map((match) => match[1] as string);
  expect(files.length).toBeGreaterThan(0);
  const sources = files.map((file) => readFileSync(new URL(file, root), 'utf8'));
  const quoted = /“(.+?)(?: …)?”/.exec(test)?.[1];
  if (quoted)
    expect(
      sources.some((source) => source.includes(quoted)),
      `${quoted} in ${files.join(', ')}`,
    ).toBe(true);
  else expect(sources.every((source) => /\bit\(|Deno\.test\(/.test(source))).toBe(true);
});
