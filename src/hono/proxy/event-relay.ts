/**
 * An upstream event stream passed to the client byte for byte, as it arrives. A failure while
 * reading it (the connection dropped, the upstream silent past the idle timeout) ends the
 * client's stream with an error event in the protocol's shape after what had arrived, where a
 * cut connection would reach the client as a bare network error, or, to some clients, as an
 * answer that simply stopped.
 */
import type { ProxyProtocol } from './proxy-protocol.js';
import { streamFailure } from './stream-failure.js';

const encoder = new TextEncoder();
const LF = 0x0a;

/**
 * The client's stream for an upstream event stream `body`; cancelling it cancels `body`.
 *
 * @example
 * new Response(relayEvents(upstream.body, anthropicMessages), { status: 200, headers })
 */
export function relayEvents(
  body: ReadableStream<Uint8Array>,
  protocol: Pick<ProxyProtocol, 'errorEvent'>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // The last two bytes relayed: whether the client's parser stands between events.
  let last = [LF, LF];
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          if (value.byteLength > 0)
            last =
              value.byteLength > 1
                ? [value[value.byteLength - 2] ?? 0, value[value.byteLength - 1] ?? 0]
                : [last[1] ?? 0, value[0] ?? 0];
          controller.enqueue(value);
        } catch (error) {
          const failure = streamFailure(error);
          // An event cut in the middle is ended first, so the error is an event of its own.
          const between = last[0] === LF && last[1] === LF;
          controller.enqueue(
            encoder.encode(`${between ? '' : '\n\n'}${protocol.errorEvent(failure.type, failure.message)}`),
          );
          controller.close();
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
