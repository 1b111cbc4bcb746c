import type { Embedder, EmbedOptions } from '../../src/embed/embedder.js';
import type { VectorCache } from '../../src/embed/vector-cache.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { isToken, rawWords } from '../../src/text/words.js';

/** How the test embedder answers one call. */
export type Behaviour = 'ok' | 'throw' | 'reject' | 'nan' | 'zero' | 'empty' | 'wrong-count' | 'wrong-dims';

/** A deterministic hashed bag-of-words embedder that counts what it embeds. */
export interface CountingEmbedder extends Embedder {
  /** Every text embedded, in order (queries included). */
  readonly texts: string[];
  /** Embed calls made. */
  calls: number;
  /** Decide per call how to answer (default: always 'ok'). */
  behaviour: (texts: readonly string[]) => Behaviour;
  /** When set, each call waits for it (or for its signal to abort) before answering. */
  hold: Promise<void> | undefined;
}

function fnv32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Hashed bag of words (light stemming: trailing "s" dropped), not normalised. */
export function bagOfWords(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const words = rawWords(text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' ')).filter(isToken);
  for (const raw of words) {
    const word = raw.length > 4 && raw.endsWith('s') ? raw.slice(0, -1) : raw;
    const h = fnv32(word);
    vector[h % dimensions] = (vector[h % dimensions] ?? 0) + (h & 0x80000000 ? -1 : 1);
  }
  return vector;
}

export function countingEmbedder(options: { dimensions?: number; id?: string } = {}): CountingEmbedder {
  const dimensions = options.dimensions ?? 256;
  const embedder: CountingEmbedder = {
    id: options.id ?? `test/bow-${dimensions}`,
    dimensions,
    texts: [],
    calls: 0,
    behaviour: () => 'ok',
    hold: undefined,
    embed(texts: readonly string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const behaviour = embedder.behaviour(texts);
      if (behaviour === 'throw') throw new Error('embedder exploded');
      embedder.calls++;
      return (async () => {
        if (embedder.hold) {
          const signal = embedOptions?.signal;
          await new Promise<void>((resolve, reject) => {
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
            embedder.hold?.then(resolve, reject);
          });
        }
        if (behaviour === 'reject') throw new Error('embedding service unavailable');
        embedder.texts.push(...texts);
        switch (behaviour) {
          case 'nan':
            return texts.map(() => new Float32Array(dimensions).fill(Number.NaN));
          case 'zero':
            return texts.map(() => new Float32Array(dimensions));
          case 'empty':
            return texts.map(() => new Float32Array(0));
          case 'wrong-count':
            return texts.slice(1).map((text) => bagOfWords(text, dimensions));
          case 'wrong-dims':
            return texts.map((text) => bagOfWords(text, dimensions + 3));
          default:
            return texts.map((text) => bagOfWords(text, dimensions));
        }
      })();
    },
  };
  return embedder;
}

/** A VectorCache over a Map you hold, so two "processes" can share storage but not memory. */
export function mapCache(map: Map<string, Uint8Array> = new Map()): VectorCache & {
  map: Map<string, Uint8Array>;
  gets: number;
  sets: number;
} {
  const cache = {
    map,
    gets: 0,
    sets: 0,
    async get(key: string) {
      cache.gets++;
      return map.get(key);
    },
    async set(key: string, value: Uint8Array) {
      cache.sets++;
      map.set(key, value.slice());
    },
    async delete(key: string) {
      map.delete(key);
    },
  };
  return cache;
}

function tool(name: string, description: string): ToolSchema {
  return { name, description, parameters: { type: 'object', properties: {} } };
}

/** A small registry of realistic tools. */
export function registry(): ToolSchema[] {
  return [
    tool('get_weather', 'Current weather and forecast (temperature, rain, wind) for a city.'),
    tool('send_email', 'Send an email message to a recipient address with a subject and body.'),
    tool('read_file', 'Read the contents of a file from disk and show its text.'),
    tool('write_file', 'Write text content to a file on disk, creating or overwriting it.'),
    tool('search_web', 'Search the web for pages matching a query and return links.'),
    tool('create_calendar_event', 'Create a calendar event or meeting with a title, date and attendees.'),
    tool('translate_text', 'Translate text from one language into another language.'),
    tool('convert_currency', 'Convert an amount of money between currencies using exchange rates.'),
    tool('list_directory', 'List the files and folders inside a directory.'),
    tool('run_shell_command', 'Run a shell command in a terminal and capture its output.'),
  ];
}

export function ctx(prompt: string | undefined, turn = 1) {
  return { turn, latestUserMessage: prompt, conversation: [] as const };
}
