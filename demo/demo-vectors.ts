/**
 * The demo registry's precomputed vectors: what `npm start --prepare` and the demo build ship
 * beside the page (`vectors/demo.lcv`), so the page's and the worker's first selection embeds
 * only the prompt. Node-only (reads the model from disk); the page and worker just load the file.
 */
import { useLiteEmbedder } from '../src/adapters/use-lite.js';
import { buildVectorsFile } from '../src/embed/vectors-build.js';
import { readVectorsFile } from '../src/embed/vectors-file.js';
import { toolText } from '../src/text/words.js';
import { DEMO_TOOLS } from './demo-tools.js';

/** Where the page and the worker find the file, relative to the page / assets root. */
export const DEMO_VECTORS_PATH = 'vectors/demo.lcv';

/** The embedder the page and the in-worker model use: USE-lite int8. */
const EMBEDDER_ID = 'use-lite/int8/mean/tok2';

/**
 * Whether `bytes` is a valid vectors file for the demo registry's current texts.
 *
 * @example
 * if (!coversDemo(readFileSync(cached))) rebuild()
 */
export function coversDemo(bytes: Uint8Array): boolean {
  const read = readVectorsFile(bytes, { embedderId: EMBEDDER_ID, dimensions: 512 });
  return (
    read.ok && DEMO_TOOLS.every((tool) => read.file.vectorFor(toolText(tool.name, tool.description)) !== undefined)
  );
}

/**
 * Embed the demo registry with USE-lite int8 from `modelPath` and return the vectors file.
 *
 * @example
 * writeFileSync('build/demo/vectors/demo.lcv', await buildDemoVectors('models/use-lite'))
 */
export async function buildDemoVectors(modelPath: string): Promise<Uint8Array> {
  const embedder = useLiteEmbedder({ modelPath, dtype: 'int8', device: 'wasm' });
  try {
    if (embedder.id !== EMBEDDER_ID)
      throw new Error(`demo vectors expect ${EMBEDDER_ID}, the embedder is ${embedder.id}`);
    return await buildVectorsFile(embedder, DEMO_TOOLS);
  } finally {
    await embedder.dispose();
  }
}
