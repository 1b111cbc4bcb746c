/**
 * A wrong `modelPath` is a set-up mistake, not a passing fault: the selection still works (the
 * hybrid ranks lexically, the embedding selector falls open, each saying so in its output), and
 * the console of the process that owns the embedder hears it once, with the path it tried and
 * the command that builds the model there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { useLiteEmbedder } from '../../src/adapters/use-lite.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';

const dir = mkdtempSync(join(tmpdir(), 'loopctl-missing-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tools: ToolSchema[] = [
  { name: 'get_weather', description: 'Current weather for a city.', parameters: { type: 'object' } },
  { name: 'send_email', description: 'Send an email to a recipient.', parameters: { type: 'object' } },
  { name: 'stock_price', description: 'Latest trading price of a ticker.', parameters: { type: 'object' } },
];
const context = (prompt: string) => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [{ role: 'user' as const, content: prompt }],
});

let warn: MockInstance;
let error: MockInstance;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

/** Everything written to console.warn and console.error, one string per call. */
const consoleMessages = () => [...warn.mock.calls, ...error.mock.calls].map((args) => args.join(' '));

describe('a use-lite embedder whose modelPath holds no model', () => {
  it('HybridSelector: one console message naming the path, over several selections', async () => {
    const modelPath = join(dir, 'no-such-model');
    const selector = new HybridSelector(useLiteEmbedder({ modelPath }), { topK: 1 });
    for (const prompt of ['weather in Oslo', 'email Kim', 'price of AAPL']) {
      const selection = await selector.select(context(prompt), tools);
      expect(selection.tools.length).toBeGreaterThan(0);
    }
    const messages = consoleMessages();
    expect(messages, messages.join('\n')).toHaveLength(1);
    expect(messages[0]).toContain(modelPath);
    expect(messages[0]).toContain(`npx loopctl model --out ${modelPath}`);
  });

  it('EmbeddingSelector falls open, and says so on the console once', async () => {
    const modelPath = join(dir, 'also-missing');
    const selector = new EmbeddingSelector(useLiteEmbedder({ modelPath }), { topK: 1 });
    for (const prompt of ['weather in Oslo', 'email Kim']) {
      const selection = await selector.select(context(prompt), tools);
      expect(selection.fellOpen).toBeTruthy();
    }
    const messages = consoleMessages();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(modelPath);
  });

  it('the same path is said once, however many embedders try it; onWarning takes the message instead', async () => {
    const told: string[] = [];
    const modelPath = join(dir, 'third');
    const embedder = useLiteEmbedder({ modelPath, onWarning: (message) => told.push(message) });
    await expect(embedder.embed(['a'])).rejects.toThrow(modelPath);
    await expect(embedder.load()).rejects.toThrow(modelPath);
    const again = useLiteEmbedder({ modelPath, onWarning: (message) => told.push(message) });
    await expect(again.load()).rejects.toThrow(modelPath);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(modelPath);
    expect(consoleMessages()).toEqual([]);
  });
});
