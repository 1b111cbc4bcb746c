/**
 * Running USE lite: texts to token ids (the first 128, all the model reads), ids to padded
 * batches grouped by length, batches through the session, one 512-d vector per text.
 */

import type { EmbedOptions, EmbedProgress } from '../embed/embedder.js';
import { lengthBuckets } from '../embed/length-buckets.js';
import type { ModelCallQueue } from '../embed/load-once.js';
import type { Ort } from './ort-runtime.js';
import type { UseLiteTokenizer } from './use-lite-tokenizer.js';

type OrtSession = import('onnxruntime-web').InferenceSession;

/** Texts longer than this many tokens are clipped, as the TF.js graph does. */
export const USE_LITE_MAX_TOKENS = 128;

/** Output width of USE lite. */
export const USE_LITE_DIMENSIONS = 512;

/** What a batch runs on: the runtime's tensor class and the session. @internal */
export interface UseLiteSession {
  readonly Tensor: Ort['Tensor'];
  readonly session: OrtSession;
}

/** What an embed runs on: the session, the tokenizer and the device (which sets batch widths). @internal */
export interface UseLiteRunState extends UseLiteSession {
  readonly tokenizer: UseLiteTokenizer;
  readonly backend: { readonly device: 'native' | 'wasm' | 'webgpu' };
}

/**
 * The first 128 token ids, all the model reads: only the text they come from is tokenized, so
 * a huge prompt costs what its first words cost. An empty text stays empty and is embedded as
 * a masked row.
 *
 * @example
 * tokenizeUseLite(tokenizer, 'weather in Paris') // [ids…], at most 128
 */
export function tokenizeUseLite(tokenizer: UseLiteTokenizer, text: string): number[] {
  return tokenizer.encodePrefix(text, USE_LITE_MAX_TOKENS).ids;
}

/**
 * One model call: rows of token ids, padded to the longest with a mask, to one vector each.
 *
 * @example
 * const [vector] = await runUseLiteBatch({ Tensor, session }, [tokenizeUseLite(tokenizer, 'ready')])
 *
 * @internal
 */
export async function runUseLiteBatch(state: UseLiteSession, rows: number[][]): Promise<Float32Array[]> {
  const width = Math.max(1, ...rows.map((r) => r.length)); // >= 1 so an all-empty batch is valid
  const ids = new BigInt64Array(rows.length * width); // pad id 0; the mask decides validity
  const mask = new BigInt64Array(rows.length * width);
  rows.forEach((row, i) => {
    row.forEach((id, j) => {
      ids[i * width + j] = BigInt(id);
      mask[i * width + j] = 1n;
    });
  });
  const { Tensor } = state;
  const outputs = await state.session.run({
    input_ids: new Tensor('int64', ids, [rows.length, width]),
    attention_mask: new Tensor('int64', mask, [rows.length, width]),
  });
  const output = outputs.sentence_embedding;
  if (!output) throw new Error('use-lite: model has no sentence_embedding output');
  const data = (await output.getData()) as Float32Array;
  const vectors = rows.map((_, i) => data.slice(i * USE_LITE_DIMENSIONS, (i + 1) * USE_LITE_DIMENSIONS));
  output.dispose();
  return vectors;
}

/** How an embed batches and reports: texts per call at most, and the progress sink. @internal */
export interface EmbedPlan {
  readonly batchSize: number;
  readonly onProgress?: ((progress: EmbedProgress) => void) | undefined;
}

/**
 * Embed texts on a loaded model, each call through the embedder's queue. Similar lengths share a
 * batch, so little compute is spent on padding. On a CPU a call costs about its padded tokens
 * (one full-length text ≈ 15 ms on one core, 32 tool texts ≈ 70 ms) and holds the thread
 * throughout, so a call carries at most one full-length text's worth: other requests run between
 * calls, and throughput is the same. A GPU call costs its dispatch more than its tokens: there
 * batches stay wide.
 *
 * @example
 * const vectors = await embedUseLite(state, ['weather in Paris'], { batchSize: 32 }, {}, modelCall)
 *
 * @internal
 */
export async function embedUseLite(
  state: UseLiteRunState,
  texts: readonly string[],
  plan: EmbedPlan,
  embedOptions: EmbedOptions,
  modelCall: ModelCallQueue,
): Promise<Float32Array[]> {
  const { signal } = embedOptions;
  const { batchSize } = plan;
  const tokens = texts.map((text) => tokenizeUseLite(state.tokenizer, text));
  const batches = lengthBuckets(
    tokens.map((row) => row.length),
    {
      maxRows: batchSize,
      maxTokens:
        state.backend.device === 'webgpu' ? Math.max(batchSize, 16) * USE_LITE_MAX_TOKENS : USE_LITE_MAX_TOKENS,
    },
  );
  const result: Float32Array[] = new Array(texts.length);
  let done = 0;
  for (const slice of batches) {
    const vectors = await modelCall(() => {
      signal?.throwIfAborted();
      return runUseLiteBatch(
        state,
        slice.map((i) => tokens[i] ?? []),
      );
    });
    slice.forEach((index, k) => {
      result[index] = vectors[k] as Float32Array;
    });
    done += slice.length;
    plan.onProgress?.({ phase: 'corpus', done, total: texts.length });
  }
  return result;
}
