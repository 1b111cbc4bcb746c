/**
 * The proxy's learned copies of a selector (a real `EmbeddingSelector` over the counting
 * embedder): built in the background on a new snapshot, and rebuilt at most once per
 * `minRebuildMs` however often the tenant's snapshot moves on.
 */
import { expect, it } from 'vitest';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import { learnedSelectors } from '../../src/hono/proxy/learn/learned-selectors.js';
import type { StoredExample } from '../../src/hono/proxy/learn/tenant-state.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { countingEmbedder, registry } from '../embed/counting-embedder.js';

const TOOLS = registry();
const QUERIES: [string, string][] = [
  ['Sort out the usual thing for Oslo', 'get_weather'],
  ['Sort out the usual thing for Bergen', 'send_email'],
  ['Sort out the usual thing for Tromsø', 'translate_text'],
];

/** Snapshot `version` holding the first `count` examples. */
const snapshot = (version: number, count: number) => ({
  version,
  examples: QUERIES.slice(0, count).map(
    ([query, tool], n): StoredExample => ({ key: `k${n}`, query, tools: [tool], at: n }),
  ),
});

const base = () => new EmbeddingSelector(countingEmbedder(), { cache: memoryVectorCache() });

it('rebuilds a copy at most once per minRebuildMs, the first build at once', async () => {
  const selectors = learnedSelectors(undefined, 300);
  const selector = base();
  const pick = (version: number, count: number) => selectors.pick(selector, 't/r', snapshot(version, count), TOOLS);

  expect(pick(1, 1).learned).toBe(0); // building in the background
  await selectors.idle();
  expect(pick(1, 1).learned).toBe(1);

  // The snapshot moves on twice within the interval: the last copy serves, nothing is built.
  expect(pick(2, 2).learned).toBe(1);
  await selectors.idle();
  expect(pick(3, 3).learned).toBe(1);
  await selectors.idle();
  expect(pick(3, 3).learned).toBe(1);

  // Past it, the next request starts one build, of the newest snapshot.
  await new Promise((done) => setTimeout(done, 350));
  expect(pick(3, 3).learned).toBe(1);
  await selectors.idle();
  expect(pick(3, 3).learned).toBe(3);
});

it('with minRebuildMs 0, every new snapshot is built as soon as none is building', async () => {
  const selectors = learnedSelectors(undefined, 0);
  const selector = base();
  selectors.pick(selector, 't/r', snapshot(1, 1), TOOLS);
  await selectors.idle();
  expect(selectors.pick(selector, 't/r', snapshot(2, 2), TOOLS).learned).toBe(1);
  await selectors.idle();
  expect(selectors.pick(selector, 't/r', snapshot(2, 2), TOOLS).learned).toBe(2);
});

it('keeps slots apart: a rebuild wait in one tenant never delays another', async () => {
  const selectors = learnedSelectors(undefined, 60_000);
  const selector = base();
  selectors.pick(selector, 'a/r', snapshot(1, 1), TOOLS);
  selectors.pick(selector, 'b/r', snapshot(1, 2), TOOLS);
  await selectors.idle();
  expect(selectors.pick(selector, 'a/r', snapshot(1, 1), TOOLS).learned).toBe(1);
  expect(selectors.pick(selector, 'b/r', snapshot(1, 2), TOOLS).learned).toBe(2);
});
