/**
 * What a sequence of requests costs in billed input units under the providers' published
 * prompt-caching rules, from the bodies the upstream received (`npm run bench:cache`). A unit
 * is one uncached input token's price.
 *
 * - **Anthropic** (Messages): the prompt prefix is tools → system → messages. A prefix is
 *   cached only at a `cache_control` breakpoint and only from the model's minimum cacheable
 *   length (1,024 tokens on Sonnet); writing it costs 1.25×, reading it 0.1×, the rest 1×. A
 *   request hits an entry written at one of its breakpoints or up to 20 blocks before one.
 *   Deferred tools (`defer_loading`) are not rendered in the prefix and cost nothing.
 * - **OpenAI** (Chat Completions): every prompt of 1,024 tokens or more is cached by itself;
 *   a later prompt sharing a prefix with an earlier one reads that prefix, in 128-token steps,
 *   at the cached-input price (0.25× on the gpt-4.1 family, 0.5× on gpt-4o, 0.1× on gpt-5);
 *   there is no write premium.
 * - **Uncached**: a client that sets no breakpoint, or a server without a prefix cache: every
 *   token at 1×.
 *
 * Tokens are counted with the o200k tokenizer (gpt-tokenizer) on each block's JSON text: the
 * same count for every policy, which is what a comparison needs; the providers' own rendering
 * adds a few tokens per block either way. Cache entries do not expire (a session replays in
 * well under the 5-minute TTL).
 */
import { countTokens } from 'gpt-tokenizer';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One block of a prompt, in prefix order. */
export interface PromptBlock {
  readonly text: string;
  /** The client (or the proxy) set a `cache_control` breakpoint at the end of this block. */
  readonly breakpoint: boolean;
}

/** A block's content as the provider caches it: `cache_control` marks a position, it is not content. */
function cachedText(block: unknown): string {
  if (!isObject(block) || block.cache_control === undefined) return JSON.stringify(block);
  const { cache_control: _, ...rest } = block;
  return JSON.stringify(rest);
}

/**
 * A request body as the prompt's blocks: each rendered tool, each system block, each message's
 * content blocks (an Anthropic top-level `cache_control` marks the last block).
 *
 * @example
 * promptBlocks('anthropic', { tools: [...], system: 'x', messages: [...] }).length
 */
export function promptBlocks(protocol: 'openai' | 'anthropic', body: Json): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (isObject(tool) && tool.defer_loading === true) continue; // not rendered
    blocks.push({ text: cachedText(tool), breakpoint: isObject(tool) && tool.cache_control != null });
  }
  if (protocol === 'anthropic') {
    if (typeof body.system === 'string') blocks.push({ text: body.system, breakpoint: false });
    else if (Array.isArray(body.system))
      for (const block of body.system)
        blocks.push({ text: cachedText(block), breakpoint: isObject(block) && block.cache_control != null });
  }
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message)) continue;
    if (protocol === 'openai' || typeof message.content === 'string') {
      blocks.push({
        text: `${String(message.role)}:${JSON.stringify(protocol === 'openai' ? message : message.content)}`,
        breakpoint: false,
      });
      continue;
    }
    const content = Array.isArray(message.content) ? message.content : [];
    content.forEach((block, i) => {
      blocks.push({
        text: `${i === 0 ? `${String(message.role)}:` : ''}${cachedText(block)}`,
        breakpoint: isObject(block) && block.cache_control != null,
      });
    });
  }
  if (protocol === 'anthropic' && body.cache_control != null && blocks.length > 0) {
    const last = blocks[blocks.length - 1] as PromptBlock;
    blocks[blocks.length - 1] = { ...last, breakpoint: true };
  }
  return blocks;
}

/** What one request was billed. */
export interface RequestBill {
  readonly tokens: number;
  readonly read: number;
  readonly written: number;
  readonly uncached: number;
  /** Billed input units. */
  readonly units: number;
}

/** The providers' rules, as {@link CacheBiller} applies them. */
export interface BillRules {
  readonly provider: 'anthropic' | 'openai';
  /** Whether anything is cached at all (false: a client without breakpoints, a server without a cache). */
  readonly cached: boolean;
  /** Minimum cacheable prefix. Default 1024. */
  readonly minimum?: number;
  /** Anthropic write multiplier. Default 1.25. */
  readonly write?: number;
  /** Read multiplier: Anthropic 0.1; OpenAI's cached-input price. Default 0.1 / 0.25. */
  readonly read?: number;
  /** Anthropic: blocks before a breakpoint a hit may sit at. Default 20. */
  readonly lookback?: number;
  /** OpenAI: cached prefixes are counted in steps of this many tokens. Default 128. */
  readonly step?: number;
}

const tokenCache = new Map<string, number>();

function tokensOf(text: string): number {
  let count = tokenCache.get(text);
  if (count === undefined) {
    count = countTokens(text);
    if (tokenCache.size > 200_000) tokenCache.clear();
    tokenCache.set(text, count);
  }
  return count;
}

/** Block identities, so a prefix key is a short hash chain rather than the whole text. */
const blockIds = new Map<string, number>();

function blockId(text: string): number {
  let id = blockIds.get(text);
  if (id === undefined) {
    id = blockIds.size + 1;
    blockIds.set(text, id);
  }
  return id;
}

function prefixKeys(blocks: readonly PromptBlock[]): string[] {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  return blocks.map((block) => {
    const id = blockId(block.text);
    a = Math.imul(a ^ id, 0x01000193) >>> 0;
    b = Math.imul(b ^ (id * 2654435761), 0x5bd1e995) >>> 0;
    return `${a.toString(36)}.${b.toString(36)}`;
  });
}

/**
 * A prompt cache as one provider runs it, across the requests it is shown in order (one
 * client's traffic: conversations share entries, as a user's next conversation reuses a
 * cached tools prefix).
 *
 * @example
 * const biller = new CacheBiller({ provider: 'anthropic', cached: true })
 * biller.bill(promptBlocks('anthropic', body)).units
 */
export class CacheBiller {
  readonly #rules: Required<BillRules>;
  readonly #entries = new Set<string>();

  constructor(rules: BillRules) {
    this.#rules = {
      minimum: 1024,
      write: 1.25,
      read: rules.provider === 'anthropic' ? 0.1 : 0.25,
      lookback: 20,
      step: 128,
      ...rules,
    };
  }

  bill(blocks: readonly PromptBlock[]): RequestBill {
    const counts = blocks.map((block) => tokensOf(block.text));
    const through: number[] = [];
    let sum = 0;
    for (const count of counts) {
      sum += count;
      through.push(sum);
    }
    const tokens = sum;
    if (!this.#rules.cached || blocks.length === 0)
      return { tokens, read: 0, written: 0, uncached: tokens, units: tokens };
    const keys = prefixKeys(blocks);
    return this.#rules.provider === 'anthropic'
      ? this.#anthropic(blocks, through, keys, tokens)
      : this.#openai(through, keys, tokens);
  }

  #anthropic(
    blocks: readonly PromptBlock[],
    through: readonly number[],
    keys: readonly string[],
    tokens: number,
  ): RequestBill {
    const { minimum, write, read, lookback } = this.#rules;
    const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));
    let hit = -1;
    for (const at of breakpoints) {
      for (let j = at; j >= Math.max(0, at - lookback); j--) {
        if (this.#entries.has(keys[j] as string)) {
          hit = Math.max(hit, j);
          break;
        }
      }
    }
    const readTokens = hit >= 0 ? (through[hit] as number) : 0;
    let done = hit;
    let written = 0;
    for (const at of breakpoints) {
      if (at <= done) continue;
      const prefix = through[at] as number;
      if (prefix < minimum) continue; // too short to cache: billed as uncached below
      written += prefix - (done >= 0 ? (through[done] as number) : 0);
      this.#entries.add(keys[at] as string);
      done = at;
    }
    const uncached = tokens - readTokens - written;
    return { tokens, read: readTokens, written, uncached, units: readTokens * read + written * write + uncached };
  }

  #openai(through: readonly number[], keys: readonly string[], tokens: number): RequestBill {
    const { minimum, read, step } = this.#rules;
    let cached = 0;
    if (tokens >= minimum) {
      for (let j = keys.length - 1; j >= 0; j--) {
        if (this.#entries.has(keys[j] as string)) {
          const prefix = Math.floor((through[j] as number) / step) * step;
          cached = prefix >= minimum ? prefix : 0;
          break;
        }
      }
      for (const key of keys) this.#entries.add(key);
    }
    return { tokens, read: cached, written: 0, uncached: tokens - cached, units: cached * read + (tokens - cached) };
  }
}
