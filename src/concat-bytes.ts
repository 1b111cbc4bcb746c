/**
 * One buffer from chunks read off a stream (a body, a download), in order.
 *
 * @example
 * concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]) // Uint8Array [1, 2, 3]
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0),
): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
