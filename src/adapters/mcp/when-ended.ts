/** A response stream that says when it is over. */
/**
 * `body` passed through, running `done` once when it ends, fails or is cancelled: how a server
 * answering with a stream learns its answer has gone out.
 *
 * @example
 * return new Response(whenEnded(response.body, () => server.close()), response)
 */
export function whenEnded(body: ReadableStream<Uint8Array>, done: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ran = false;
  const once = async () => {
    if (ran) return;
    ran = true;
    await done();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          await once();
        } else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
        await once();
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
      await once();
    },
  });
}
