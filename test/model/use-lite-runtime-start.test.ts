/**
 * useLiteEmbedder starts onnxruntime-web's runtime alongside the model download, with a
 * throwaway empty model (ORT starts its backend before it reads the bytes). That start must
 * never hide a runtime that cannot start: the load still fails with ORT's own error. Its own
 * file: onnxruntime-web's WASM runtime fails for the rest of a process once it has failed.
 */
import { describe, expect, it } from 'vitest';
import { useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { ensureModel, MODEL_DIR } from './use-lite-setup.js';

describe('useLiteEmbedder runtime start', () => {
  it("fails the load with the runtime's own error when its files are missing, and again on retry", async () => {
    await ensureModel();
    const embedder = useLiteEmbedder({ modelPath: MODEL_DIR, device: 'wasm', wasmPaths: '/nonexistent/ort/' });
    await expect(embedder.load()).rejects.toThrow(/backend.*\/nonexistent\/ort\/ort-wasm-simd-threaded\.mjs/);
    await expect(embedder.embed(['x'])).rejects.toThrow(/\/nonexistent\/ort\//);
    expect(embedder.backend).toBeUndefined();
  });
});
