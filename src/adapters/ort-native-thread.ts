/**
 * onnxruntime-node's session on a thread of its own. Its `run()` computes on the calling thread
 * (it only defers the start with `setImmediate`), so in a server every model call held the event
 * loop: one full-length text is 15–25 ms in which no other request is read or answered. Here
 * the session lives in a `node:worker_threads` worker and the event loop only posts the input
 * ids and receives the vectors. Node only; imported lazily by the USE-lite adapter, like
 * onnxruntime-node itself.
 */

import { nodeImport } from './ort-runtime.js';

type OrtSession = import('onnxruntime-web').InferenceSession;
type WorkerThreads = typeof import('node:worker_threads');

/** A tensor as it crosses the thread boundary. */
interface WireTensor {
  readonly type: string;
  readonly data: ArrayBufferView;
  readonly dims: readonly number[];
}

type Reply =
  | { readonly id: number; readonly outputs: Record<string, WireTensor> }
  | { readonly id: number; readonly error: string };

// The worker: CommonJS, given onnxruntime-node's resolved path (an eval'd worker resolves bare
// names from the working directory, not from loopctl), the model bytes and the threads.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ortPath);
const ready = ort.InferenceSession.create(workerData.model, workerData.sessionOptions);
ready.then(
  () => parentPort.postMessage({ id: 0, outputs: {} }),
  (error) => parentPort.postMessage({ id: 0, error: String(error && error.message || error) }),
);
parentPort.on('message', async ({ id, feeds }) => {
  try {
    const session = await ready;
    const input = {};
    for (const name of Object.keys(feeds)) {
      const { type, data, dims } = feeds[name];
      input[name] = new ort.Tensor(type, data, dims);
    }
    const result = await session.run(input);
    const outputs = {};
    const transfer = [];
    for (const name of Object.keys(result)) {
      const { type, data, dims } = result[name];
      outputs[name] = { type, data, dims };
      transfer.push(data.buffer);
    }
    parentPort.postMessage({ id, outputs }, transfer);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

/**
 * A native CPU session in a worker thread, with the session API the embedder uses (`run` with
 * tensors in, tensors out; `release`). The worker keeps the process alive only while a call is
 * in flight, so a CLI still exits when its work is done. A worker that dies fails every pending
 * call with its error.
 * @internal
 */
export async function createThreadedNativeSession(
  model: Uint8Array,
  sessionOptions: Record<string, unknown>,
): Promise<OrtSession> {
  const { Worker } = await nodeImport<WorkerThreads>('node:worker_threads');
  const { createRequire } = await nodeImport<typeof import('node:module')>('node:module');
  const ortPath = resolveOrtNode(createRequire);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ortPath, model, sessionOptions },
  });
  const pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  let nextId = 1;
  let failure: Error | undefined;
  const settle = () => (pending.size === 0 ? worker.unref() : worker.ref());
  const failAll = (error: Error) => {
    failure ??= error;
    for (const call of pending.values()) call.reject(failure);
    pending.clear();
    worker.unref();
  };
  worker.on('message', (reply: Reply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    settle();
    call.resolve(reply);
  });
  worker.on('error', (error) => failAll(error instanceof Error ? error : new Error(String(error))));
  worker.on('exit', (code) => failAll(new Error(`onnxruntime-node's worker thread exited (code ${code})`)));

  // Id 0 is the worker's word that its session exists; a run's reply carries the run's id.
  const call = (id: number, feeds?: Record<string, WireTensor>): Promise<Reply> =>
    new Promise<Reply>((resolve, reject) => {
      if (failure) return reject(failure);
      pending.set(id, { resolve, reject });
      settle();
      if (feeds) worker.postMessage({ id, feeds });
    });

  const created = await call(0);
  if ('error' in created) {
    await worker.terminate();
    throw new Error(created.error);
  }

  const session = {
    async run(feeds: Record<string, WireTensor>) {
      const wire: Record<string, WireTensor> = {};
      for (const [name, tensor] of Object.entries(feeds)) {
        wire[name] = { type: tensor.type, data: tensor.data, dims: [...tensor.dims] };
      }
      const reply = await call(nextId++, wire);
      if ('error' in reply) throw new Error(reply.error);
      const outputs: Record<string, unknown> = {};
      for (const [name, { type, data, dims }] of Object.entries(reply.outputs)) {
        outputs[name] = { type, data, dims, getData: async () => data, dispose: () => undefined };
      }
      return outputs;
    },
    async release() {
      failAll(new Error("onnxruntime-node's session was released"));
      await worker.terminate();
    },
  };
  return session as unknown as OrtSession;
}

function resolveOrtNode(createRequire: typeof import('node:module').createRequire): string {
  // As `import('onnxruntime-node')` resolves it from here, else from the app's folder.
  for (const base of [import.meta.url, `${process.cwd()}/`]) {
    try {
      return createRequire(base).resolve('onnxruntime-node');
    } catch {
      // try the next base
    }
  }
  throw new Error('onnxruntime-node is not installed (ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node)');
}
