/**
 * Prompts the encoder cannot read, and prompts far larger than it reads, with the real offline
 * model (USE lite): a dense ranking notices a prompt made mostly of characters its vocabulary
 * does not know and does not trust its vector (embedding falls open, hybrid ranks on its lexical
 * half or falls open, saying why); a 7 MiB prompt embeds as its first words do.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UseLiteEmbedder, useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { runSelection } from '../../src/select/run-selection.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { wideToolSet } from '../support/wide-tool-set.js';

const modelDir = fileURLToPath(new URL('../../models/use-lite/', import.meta.url));
const haveModel = existsSync(`${modelDir}onnx/model.onnx`) || existsSync(`${modelDir}onnx/model_quantized.onnx`);
const TOOLS = wideToolSet();
const ctx = (text: string): SelectionContext => ({
  turn: 1,
  latestUserMessage: text,
  conversation: [{ role: 'user', content: text }],
});

describe.skipIf(!haveModel)('prompts the encoder cannot read, and huge prompts', () => {
  let embedder: UseLiteEmbedder;
  const cache = memoryVectorCache();

  beforeAll(async () => {
    embedder = useLiteEmbedder({ modelPath: modelDir, device: 'wasm' });
  }, 60_000);

  afterAll(async () => {
    await embedder?.dispose();
  });

  it('says how much of a text its vocabulary covers, once loaded', async () => {
    expect(embedder.vocabularyCoverage?.('hello')).toBeUndefined();
    await embedder.load();
    expect(embedder.vocabularyCoverage?.('What is the weather in Oslo right now?')).toBe(1);
    expect(embedder.vocabularyCoverage?.('東京の今の天気は？')).toBeLessThan(0.2);
    expect(embedder.vocabularyCoverage?.('What is the weather in 東京 right now?')).toBeGreaterThan(0.75);
    // Counted in words and letters, not characters: ASCII ids and numbers do not make it read.
    expect(embedder.vocabularyCoverage?.('ユーザーID 12345 の注文 ORDER-998877 をキャンセルして')).toBeLessThan(0.3);
  }, 60_000);

  it('a Japanese prompt: the embedding selector falls open and says why', async () => {
    const selector = new EmbeddingSelector(embedder, { topK: 8, cache });
    const selection = await runSelection(selector, ctx('東京の今の天気は？'), TOOLS);
    expect(selection.fellOpen).toMatch(/mostly outside the embedding model's vocabulary/);
    expect(selection.names).toHaveLength(TOOLS.length);
  }, 120_000);

  it('a Japanese prompt under hybrid: not 8 unrelated tools but every tool, with the reason', async () => {
    const selector = new HybridSelector(embedder, { topK: 8, cache });
    const selection = await runSelection(selector, ctx('東京の今の天気は？'), TOOLS);
    expect(selection.fellOpen).toMatch(
      /no lexical match and the embedding could not rank: the prompt is mostly outside/,
    );
    expect(selection.names).toHaveLength(TOOLS.length);
    // Mixed scripts still rank: most of the prompt is readable.
    const mixed = await runSelection(selector, ctx('What is the weather in 東京 right now?'), TOOLS);
    expect(mixed.fellOpen).toBeUndefined();
    expect(mixed.names).toContain('get_current_weather');
    // An unreadable prompt with a lexical match ranks on the lexical half, with a warning.
    const named = await runSelection(selector, ctx('東京の今日と明日の天気を詳しく教えてください weather'), TOOLS);
    expect(named.fellOpen).toBeUndefined();
    expect(named.names).toContain('get_current_weather');
    expect(named.warnings.join(' ')).toMatch(/lexical half only: the prompt is mostly outside/);
    // A short Japanese prompt with much ASCII in it (ids, numbers) is still one the encoder cannot
    // read: counted in characters it looked 56% read and was ranked; now it falls open.
    const ids = await runSelection(selector, ctx('ユーザーID 12345 の注文 ORDER-998877 をキャンセルして'), TOOLS);
    expect(ids.fellOpen ?? ids.warnings.join(' ')).toMatch(/mostly outside the embedding model's vocabulary/);
  }, 120_000);

  it('a 7 MiB prompt embeds exactly as its first words do', async () => {
    const sentence = 'Please check the weather in Oslo and then email Ana the summary of the quarterly report. ';
    const huge = sentence.repeat(Math.ceil((7 * 1024 * 1024) / sentence.length));
    const [whole, head] = await embedder.embed([huge, huge.slice(0, 4096)]);
    expect(Array.from(whole as Float32Array)).toEqual(Array.from(head as Float32Array));
  }, 60_000);
});
