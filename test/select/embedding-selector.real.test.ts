import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UseLiteEmbedder, useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';

// Ranks a realistic registry with the real offline model (USE lite, ONNX). Skipped when the
// model has not been built (`models/` is git-ignored).
const modelDir = fileURLToPath(new URL('../../models/use-lite/', import.meta.url));
const haveModel = existsSync(`${modelDir}onnx/model.onnx`) || existsSync(`${modelDir}onnx/model_quantized.onnx`);

function tool(name: string, description: string): ToolSchema {
  return { name, description, parameters: { type: 'object', properties: {} } };
}

const REGISTRY: ToolSchema[] = [
  tool('get_weather', 'Get the current weather and the forecast for a location.'),
  tool('send_email', 'Send an email to one or more recipients.'),
  tool('read_file', 'Read a file from the local filesystem and return its contents.'),
  tool('write_file', 'Write content to a file on the local filesystem.'),
  tool('search_web', 'Search the internet and return the top results.'),
  tool('create_calendar_event', 'Create an event in the user calendar with a time and attendees.'),
  tool('translate_text', 'Translate text between languages.'),
  tool('convert_currency', 'Convert an amount between currencies at the latest exchange rate.'),
  tool('get_stock_price', 'Look up the latest price of a stock ticker.'),
  tool('book_flight', 'Search and book airline flights between two airports.'),
  tool('set_timer', 'Start a countdown timer or alarm.'),
  tool('play_music', 'Play a song, album or playlist on the speaker.'),
];

const CASES: Array<[string, string]> = [
  ["What's the weather like in Paris tomorrow?", 'get_weather'],
  ['Email my manager that I will be late', 'send_email'],
  ['How much is 50 dollars in yen?', 'convert_currency'],
  ['Put a meeting with Anna on my calendar for Friday at 3pm', 'create_calendar_event'],
  ['How do you say good morning in Japanese?', 'translate_text'],
  ['I need a plane ticket from Boston to Denver next week', 'book_flight'],
  ['Wake me up in 20 minutes', 'set_timer'],
  ['Put on some jazz', 'play_music'],
];

// One corpus embed for all ranking cases.
const sharedCache = memoryVectorCache();

describe.skipIf(!haveModel)('EmbeddingSelector with the real use-lite model', () => {
  let embedder: UseLiteEmbedder;

  beforeAll(async () => {
    embedder = useLiteEmbedder({ modelPath: modelDir, device: 'wasm' });
    await embedder.load();
  });

  afterAll(async () => {
    await embedder?.dispose();
  });

  it.each(CASES)('%j ranks %s in the top 3', async (prompt, expected) => {
    const selector = new EmbeddingSelector(embedder, { topK: 3, cache: sharedCache });
    const output = await selector.select({ turn: 1, latestUserMessage: prompt, conversation: [] }, REGISTRY, {
      signal: new AbortController().signal,
    });
    expect(output.fellOpen).toBeUndefined();
    expect(output.tools.map((t) => t.name)).toContain(expected);
  });

  it('scores are cosines and the weather query prefers get_weather over everything', async () => {
    const selector = new EmbeddingSelector(embedder, { cache: sharedCache });
    const ranked = await selector.scoreTools("What's the weather like in Paris tomorrow?", REGISTRY);
    expect(ranked.ok).toBe(true);
    if (!ranked.ok) return;
    const best = [...ranked.scores].indexOf(Math.max(...ranked.scores));
    expect(REGISTRY[best]?.name).toBe('get_weather');
    for (const score of ranked.scores) expect(Math.abs(score)).toBeLessThanOrEqual(1 + 1e-5);
  });

  it('embeds the corpus once across selectors that share the cache', async () => {
    const cache = memoryVectorCache();
    const first = new EmbeddingSelector(embedder, { cache });
    await first.select({ turn: 1, latestUserMessage: 'weather', conversation: [] }, REGISTRY, {
      signal: new AbortController().signal,
    });
    const second = new EmbeddingSelector(embedder, { cache });
    await second.select({ turn: 1, latestUserMessage: 'music', conversation: [] }, REGISTRY, {
      signal: new AbortController().signal,
    });
    expect(first.stats.corpusEmbeds).toBe(REGISTRY.length);
    expect(second.stats.corpusEmbeds).toBe(0);
  });
});
