/**
 * A proxy whose upstream is a scripted `fetch` (no sockets): each upstream call is answered by
 * a {@link FaultReply}, a status, headers and a body made of pieces that then ends, fails or
 * stalls. For the faults of an upstream body after its headers (a stream cut short, garbage,
 * silence, an endless event), which the scripted servers answer only with well-formed replies.
 */

import type { LoopctlVars } from '../../src/hono/index.js';
import { createApp, optionsFromVars } from '../../src/hono/index.js';
import type { FetchLike } from '../../src/model/http.js';
import { ToolRegistry } from '../../src/registry/registry.js';

export const FAULT_TOKEN = 'stream-fault-token-0123456789';

/** How a scripted body goes on after its pieces. */
export type BodyEnd = 'end' | 'error' | 'stall';

/** One scripted upstream answer. */
export interface FaultReply {
  readonly status?: number;
  readonly contentType?: string;
  /** Pieces of the body, each one chunk. */
  readonly pieces?: readonly string[];
  /** After the pieces: close cleanly (default), fail as a lost connection would, or send nothing more. */
  readonly ending?: BodyEnd;
  /** Called for every further chunk the proxy pulls after the pieces, `ending` aside: an endless body. */
  readonly more?: (pulled: number) => string | undefined;
  /** Milliseconds before the headers arrive. */
  readonly delayMs?: number;
}

/** What the scripted upstream saw. */
export interface FaultUpstream {
  /** The request bodies, in order. */
  readonly bodies: string[];
  /** Bytes of body the proxy pulled, per upstream call. */
  readonly pulled: number[];
  /** Whether the proxy cancelled each body (it stopped reading and let the connection go). */
  readonly cancelled: boolean[];
}

const encoder = new TextEncoder();

function scriptedBody(reply: FaultReply, upstream: FaultUpstream, call: number): ReadableStream<Uint8Array> {
  const pieces = [...(reply.pieces ?? [])];
  upstream.pulled[call] = 0;
  upstream.cancelled[call] = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const piece = pieces.shift() ?? reply.more?.(upstream.pulled[call] ?? 0);
        if (piece !== undefined) {
          const bytes = encoder.encode(piece);
          upstream.pulled[call] = (upstream.pulled[call] ?? 0) + bytes.byteLength;
          controller.enqueue(bytes);
          return;
        }
        if (reply.ending === 'error') controller.error(new TypeError('terminated: other side closed'));
        else if (reply.ending === 'stall') return new Promise<void>(() => undefined);
        else controller.close();
      },
      cancel() {
        upstream.cancelled[call] = true;
      },
    },
    // One chunk at a time, as a socket hands them over: the proxy pulls only what it reads.
    { highWaterMark: 0 },
  );
}

/**
 * A proxy app whose upstream answers each call with the next of `replies`.
 *
 * @example
 * const { app, upstream } = faultProxy([{ contentType: 'text/event-stream', pieces: ['data: {}\n\n'] }])
 */
export function faultProxy(
  replies: readonly FaultReply[],
  vars: LoopctlVars = {},
): { app: ReturnType<typeof createApp>; upstream: FaultUpstream } {
  const queue = [...replies];
  const upstream: FaultUpstream = { bodies: [], pulled: [], cancelled: [] };
  const fetch: FetchLike = async (_url, init) => {
    const call = upstream.bodies.length;
    upstream.bodies.push(typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body as Uint8Array));
    const reply = queue.shift();
    if (!reply) throw new TypeError('fetch failed: no scripted reply left');
    if (reply.delayMs) await new Promise((done) => setTimeout(done, reply.delayMs));
    return new Response(scriptedBody(reply, upstream, call), {
      status: reply.status ?? 200,
      headers: { 'content-type': reply.contentType ?? 'text/event-stream' },
    });
  };
  const options = optionsFromVars({
    LOOPCTL_TOKEN: FAULT_TOKEN,
    PROXY_OPENAI_BASE_URL: 'http://upstream.invalid/v1',
    PROXY_ANTHROPIC_BASE_URL: 'http://upstream.invalid',
    ...vars,
  });
  const app = createApp({ ...options, registry: new ToolRegistry(), proxy: { ...options.proxy, fetch } });
  return { app, upstream };
}

const TOOL_NAMES = ['get_weather', 'send_email', 'read_file', 'list_directory', 'search_web'];

/** A client request in `protocol`'s shape with five tools: with `x-loopctl-k: 2` the proxy offers its search. */
export function clientRequest(
  protocol: 'openai' | 'anthropic' | 'responses',
  options: { stream: boolean; search: boolean },
): { path: string; init: RequestInit } {
  const text = 'What is the weather in Oslo?';
  const body =
    protocol === 'openai'
      ? {
          model: 'm',
          stream: options.stream,
          messages: [{ role: 'user', content: text }],
          tools: TOOL_NAMES.map((name) => ({
            type: 'function',
            function: { name, description: `The ${name.replace('_', ' ')} tool`, parameters: { type: 'object' } },
          })),
        }
      : protocol === 'anthropic'
        ? {
            model: 'm',
            max_tokens: 100,
            stream: options.stream,
            messages: [{ role: 'user', content: text }],
            tools: TOOL_NAMES.map((name) => ({
              name,
              description: `The ${name.replace('_', ' ')} tool`,
              input_schema: { type: 'object' },
            })),
          }
        : {
            model: 'm',
            stream: options.stream,
            input: text,
            tools: TOOL_NAMES.map((name) => ({
              type: 'function',
              name,
              description: `The ${name.replace('_', ' ')} tool`,
              parameters: { type: 'object' },
            })),
          };
  const path =
    protocol === 'openai' ? '/v1/chat/completions' : protocol === 'anthropic' ? '/v1/messages' : '/v1/responses';
  return {
    path,
    init: {
      method: 'POST',
      headers: {
        authorization: `Bearer ${FAULT_TOKEN}`,
        'content-type': 'application/json',
        ...(protocol === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {}),
        ...(options.search ? { 'x-loopctl-k': '2' } : { 'x-loopctl-bypass': '1' }),
      },
      body: JSON.stringify(body),
    },
  };
}

/** Whether the upstream was offered the proxy's search tool (the server-side search is active). */
export function searchOffered(body: string | undefined): boolean {
  return /"(?:loopctl_)?find_tools(?:_\d+)?"/.test(body ?? '');
}

/** The SSE events of a client body, as `{ event, data }`. */
export function clientEvents(text: string): { event?: string; data: string }[] {
  return text
    .split(/\n\n/)
    .map((block) => block.split('\n').filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const event = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      return { ...(event !== undefined ? { event } : {}), data };
    });
}
