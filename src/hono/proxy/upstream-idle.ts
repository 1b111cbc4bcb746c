/**
 * The upstream's silence after its headers, bounded: the first-byte timeout (`upstream-wait.ts`)
 * ends once the answer has begun, and a body that then stalls would hold the client, and the
 * proxy's connection and buffers, for as long as the socket stays open. Every upstream body
 * the proxy reads or relays goes through {@link idleLimited}: a read that waits longer than the
 * idle timeout fails with {@link UpstreamIdleTimeout} and the upstream body is cancelled.
 */

/** The upstream sent no body bytes within the idle timeout while the proxy waited for them. */
export class UpstreamIdleTimeout extends Error {
  override name = 'UpstreamIdleTimeout';
  constructor(readonly ms: number) {
    super(`the upstream sent nothing for ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`);
  }
}

/**
 * `response` with its body bounded by an idle timeout of `ms` (0: no limit): the time counts
 * only while a reader waits, so a slow client never trips it, only a silent upstream.
 *
 * @example
 * const upstream = idleLimited(await fetch(url, init), 300_000)
 * await upstream.text() // rejects with UpstreamIdleTimeout after 300 s without a byte
 */
export function idleLimited(response: Response, ms: number): Response {
  if (ms <= 0 || !response.body) return response;
  return new Response(idleBody(response.body, ms), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function idleBody(body: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const idle = new Promise<'idle'>((done) => {
          timer = setTimeout(() => done('idle'), ms);
        });
        try {
          const step = await Promise.race([reader.read(), idle]);
          if (step === 'idle') {
            const error = new UpstreamIdleTimeout(ms);
            controller.error(error);
            // The upstream may never send again: cancelling closes its connection.
            void reader.cancel(error).catch(() => undefined);
          } else if (step.done) controller.close();
          else controller.enqueue(step.value);
        } catch (error) {
          controller.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Pulled only when read: the clock runs while the proxy waits on the upstream, not on the client.
    { highWaterMark: 0 },
  );
}
