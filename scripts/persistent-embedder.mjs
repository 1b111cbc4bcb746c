// Shared by the tuning scripts (tune-learn.mjs, tune-whole-task.mjs): query vectors kept between runs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** An embedder whose vectors persist in a JSON file between runs (dev iteration only). */
export function persistentEmbedder(base, file) {
  const memory = new Map();
  if (existsSync(file)) {
    for (const [text, b64] of JSON.parse(readFileSync(file, 'utf8')))
      memory.set(text, new Float32Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer));
  }
  let dirty = 0;
  return {
    id: base.id,
    dimensions: base.dimensions,
    async embed(texts, options) {
      const missing = [...new Set(texts.filter((t) => !memory.has(t)))];
      for (let i = 0; i < missing.length; i += 64) {
        const batch = missing.slice(i, i + 64);
        const vectors = await base.embed(batch, options);
        batch.forEach((t, j) => {
          memory.set(t, vectors[j]);
        });
        dirty += batch.length;
      }
      return texts.map((t) => memory.get(t));
    },
    save() {
      if (!dirty) return;
      writeFileSync(
        file,
        JSON.stringify(
          [...memory].map(([t, v]) => [t, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')]),
        ),
      );
      dirty = 0;
    },
  };
}
