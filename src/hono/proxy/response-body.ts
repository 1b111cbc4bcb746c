/**
 * The upstream answer's body as the client gets it. An event stream passes through chunk by
 * chunk, never buffered. Any other answer (a JSON completion, an error) is a document the
 * client can only use whole, so up to {@link WHOLE_BODY_MAX_BYTES} of it are gathered and sent
 * in one piece: one write to the client instead of headers, each chunk and a chunked-encoding
 * terminator, each of which wakes the client. A longer answer streams on after what was
 * gathered. The bytes are the same either way.
 */
import { concatBytes } from '../../concat-bytes.js';

/** Non-stream answers up to this size are sent whole (a chat completion is a few KB). */
export const WHOLE_BODY_MAX_BYTES = 256 * 1024;

const EVENT_STREAM = /^\s*text\/event-stream/i;

/**
 * The body to answer with: the upstream's bytes whole when it is not an event stream and ends
 * within the limit, else a stream. Rejects as reading the upstream body does (an abort, a
 * connection lost mid-body).
 *
 * @example
 * new Response(await clientBody(upstream), { status: upstream.status, headers })
 */
export async function clientBody(
  upstream: Response,
): Promise<ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null> {
  if (!upstream.body) return null;
  const declared = Number(upstream.headers.get('content-length') ?? Number.NaN);
  if (EVENT_STREAM.test(upstream.headers.get('content-type') ?? '') || declared > WHOLE_BODY_MAX_BYTES)
    return upstream.body;
  // A declared length within the limit is read in one native call. Reading it chunk by chunk
  // here was the proxy's largest single cost in workerd (a JavaScript turn per read).
  if (Number.isSafeInteger(declared)) return new Uint8Array(await upstream.arrayBuffer());
  const reader = upstream.body.getReader();
  const gathered: Uint8Array[] = [];
  let size = 0;
  while (size <= WHOLE_BODY_MAX_BYTES) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(gathered, size);
    gathered.push(value);
    size += value.byteLength;
  }
  return continued(gathered, reader);
}

/** What was gathered, then the rest of `reader` as it arrives; cancelling cancels the upstream. */
function continued(
  gathered: readonly Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of gathered) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
