/**
 * Counts tokens of text. The loop's estimates and the eval's figures go through one of these.
 *
 * @example
 * const counter = await o200kTokenCounter() // real tokenizer, loaded lazily
 * counter.count('hello world') // 2
 */
export interface TokenCounter {
  readonly id: string;
  count(text: string): number;
}

const encoder = new TextEncoder();

/**
 * A fast default: about four UTF-8 bytes per token, the usual ratio for English and JSON
 * with BPE vocabularies. No dependency, no allocation beyond the byte count.
 *
 * @example
 * approxTokenCounter.count('{"type":"object"}') // 5
 */
export const approxTokenCounter: TokenCounter = {
  id: 'approx-bytes/4',
  count(text) {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code < 0xdc00 ? 2 : 3;
    }
    return Math.ceil(bytes / 4);
  },
};

/** Bytes of text as UTF-8 (for callers that need exact byte counts). */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/**
 * OpenAI's o200k_base tokenizer via `gpt-tokenizer` (an optional dependency, imported only
 * when this is called, so the core bundle never carries its tables).
 *
 * @example
 * const loop = new BareLoop({ client, registry, tokenCounter: await o200kTokenCounter() })
 */
export async function o200kTokenCounter(): Promise<TokenCounter> {
  const specifier = 'gpt-tokenizer/encoding/o200k_base';
  const module = (await import(/* @vite-ignore */ specifier)) as {
    countTokens?: (text: string) => number;
    encode: (text: string) => number[];
  };
  const count = module.countTokens ?? ((text: string) => module.encode(text).length);
  return { id: 'o200k_base', count: (text) => count(text) };
}
