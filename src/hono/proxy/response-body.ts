/**
 * The upstream answer's body as the client gets it. Event streams, and any body whose length
 * is not declared, pass through as a stream, chunk by chunk, never buffered. A complete JSON
 * answer of declared, modest size is read first and sent whole: the client cannot use part of
 * a JSON document anyway, and one write instead of headers, chunks and a chunked-encoding
 * terminator saves the client (and the server's socket) a wake-up per piece. The bytes are
 * the same either way.
 */

/** Declared bodies up to this size are sent whole (a chat completion is a few KB). */
export const WHOLE_BODY_MAX_BYTES = 256 * 1024;

const EVENT_STREAM = /^\s*text\/event-stream/i;

/**
 * The body to answer with: the upstream's bytes whole when small and declared, else its stream.
 * Rejects as `upstream.arrayBuffer()` does (an abort, a connection lost mid-body).
 *
 * @example
 * new Response(await clientBody(upstream), { status: upstream.status, headers })
 */
export async function clientBody(upstream: Response): Promise<ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null> {
  if (!upstream.body) return null;
  const type = upstream.headers.get('content-type') ?? '';
  const declared = upstream.headers.get('content-length');
  const length = declared === null ? Number.NaN : Number(declared);
  if (EVENT_STREAM.test(type) || !(length >= 0 && length <= WHOLE_BODY_MAX_BYTES)) return upstream.body;
  // Encoded bodies are decoded by fetch, so their length says nothing: stream them.
  if (upstream.headers.has('content-encoding')) return upstream.body;
  return new Uint8Array(await upstream.arrayBuffer());
}
