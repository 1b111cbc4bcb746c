/**
 * Server-side tool search: when the proxy offered its `find_tools` (and `call_tool`) tools, it
 * answers the model's calls of them itself and continues the same client request upstream
 * (a round), until the model answers with text or calls the client's own tools, at most
 * {@link MAX_SEARCH_ROUNDS} rounds. The client sees one ordinary answer: its own tools'
 * calls (a `call_tool` call arrives as a call of the tool it named), usage summed over the
 * rounds, the earlier rounds' text before the last one's. Nothing is kept between requests:
 * what the model found comes back in the conversation the client sends next (a call it made).
 */
import type { ToolSchema } from '../../registry/schema.js';
import type { MetaNames } from './meta-tools.js';
import { searchResult } from './meta-tools.js';
import type { CallResult, ModelCall, RoundCodec } from './round-codec.js';
import { parseObject, sumUsage } from './round-codec.js';
import type { SseEvent } from './sse-events.js';
import { KEEP_ALIVE, sseEvents, sseText } from './sse-events.js';
import { streamFailure } from './stream-failure.js';
import { FirstByteTimeout, ticksUntil } from './upstream-wait.js';

/** Rounds one client request may take (the first upstream call included). */
export const MAX_SEARCH_ROUNDS = 4;

/** The note a client call gets when it came in the same turn as a search (it was not run). */
const NOT_RUN = 'Not run: this call came in the same turn as a tool search. Call it again if you still need it.';

/** What a request's rounds need. */
export interface SearchRounds {
  readonly codec: RoundCodec;
  readonly meta: MetaNames;
  /** The client's tools by name (typed entries without a name left out). */
  readonly registered: ReadonlySet<string>;
  /** Names the forwarded surface declares: found tools are never these. */
  readonly surface: ReadonlySet<string>;
  /** Whether found tools are declared from the next round on (per-message) rather than called through `call_tool` (stable). */
  readonly declareFound: boolean;
  /** The body of a round: the conversation with `appended` entries, `revealed` tools declared. */
  body(appended: readonly string[], revealed: ReadonlySet<string>): string;
  /** One upstream call (the first-byte timeout applied). */
  send(body: string): Promise<Response>;
  /** The best tools for a query, not among `exclude` (the one search function, with the request's selector). */
  search(query: string, exclude: ReadonlySet<string>): Promise<ToolSchema[]>;
  readonly maxRounds?: number;
  /** The client's request: when it is gone, a failed search is not answered but ends the rounds. */
  readonly signal?: AbortSignal;
  /** Milliseconds between keep-alive comments while a later round waits (streams). */
  readonly keepAliveMs: number;
  /** The most bytes one upstream event may reach (streams). Default `MAX_SSE_EVENT_BYTES`. */
  readonly maxEventBytes?: number;
}

/** How one round's calls are answered. */
type Decision =
  | { readonly kind: 'final'; readonly calls: readonly ModelCall[] }
  | { readonly kind: 'continue'; readonly results: readonly CallResult[]; readonly found: readonly string[] };

async function decide(
  rounds: SearchRounds,
  calls: readonly ModelCall[],
  revealed: ReadonlySet<string>,
): Promise<Decision> {
  const { meta } = rounds;
  const translated: (ModelCall | undefined)[] = [];
  const answers = new Map<ModelCall, CallResult>();
  const found: string[] = [];
  for (const call of calls) {
    const args = parseObject(call.args) ?? {};
    if (call.name === meta.search) {
      const query = typeof args.query === 'string' ? args.query : call.args;
      const exclude = new Set([...rounds.surface, ...revealed, ...found]);
      try {
        const hits = await rounds.search(query, exclude);
        found.push(...hits.map((hit) => hit.name));
        answers.set(call, { call, content: searchResult(hits, rounds.declareFound ? undefined : meta.call) });
      } catch (error) {
        if (rounds.signal?.aborted) throw error;
        // The model hears that the search failed and goes on; the client's request does not fail for it.
        answers.set(call, {
          call,
          content: `Error: the tool search failed (${error instanceof Error ? error.message : String(error)}).`,
          isError: true,
        });
      }
      translated.push(undefined);
    } else if (meta.call !== undefined && call.name === meta.call) {
      const name = typeof args.name === 'string' ? args.name : '';
      if (name === '' || !rounds.registered.has(name)) {
        const what =
          name === '' ? 'a call needs the "name" of a found tool' : `no tool is called "${name.slice(0, 64)}"`;
        answers.set(call, { call, content: `Error: ${what}. Find tools with ${meta.search} first.`, isError: true });
        translated.push(undefined);
      } else {
        const inner = args.arguments;
        translated.push({ id: call.id, name, args: typeof inner === 'string' ? inner : JSON.stringify(inner ?? {}) });
      }
    } else translated.push(call);
  }
  if (answers.size === 0) return { kind: 'final', calls: translated as ModelCall[] };
  const results = calls.map((call) => answers.get(call) ?? { call, content: NOT_RUN });
  return { kind: 'continue', results, found };
}

/** The calls a round ends with when the rounds ran out: the client's own, none of the proxy's. */
function clientCalls(rounds: SearchRounds, calls: readonly ModelCall[]): ModelCall[] {
  return calls.flatMap((call) => {
    if (call.name === rounds.meta.search) return [];
    if (call.name !== rounds.meta.call) return [call];
    const args = parseObject(call.args) ?? {};
    const name = typeof args.name === 'string' ? args.name : '';
    if (!rounds.registered.has(name)) return [];
    return [
      {
        id: call.id,
        name,
        args: typeof args.arguments === 'string' ? args.arguments : JSON.stringify(args.arguments ?? {}),
      },
    ];
  });
}

/** The outcome of non-stream rounds. */
export type JsonRoundsOutcome =
  | { readonly kind: 'answer'; readonly body: string; readonly last: Response; readonly rounds: number }
  /** An upstream round answered with an error or something other than JSON: relayed as it is. */
  | { readonly kind: 'upstream'; readonly response: Response; readonly rounds: number }
  /** An upstream round said JSON and sent something else (a cut or garbled body): no answer to relay. */
  | { readonly kind: 'broken'; readonly rounds: number };

/**
 * Run the rounds of a non-stream request from its first upstream answer.
 *
 * @example
 * const outcome = await jsonRounds(rounds, await rounds.send(body))
 */
export async function jsonRounds(rounds: SearchRounds, first: Response): Promise<JsonRoundsOutcome> {
  const max = rounds.maxRounds ?? MAX_SEARCH_ROUNDS;
  const appended: string[] = [];
  const revealed = new Set<string>();
  const earlier: Record<string, unknown>[] = [];
  let usage: unknown;
  let response = first;
  for (let round = 1; ; round++) {
    if (!response.ok || !/json/i.test(response.headers.get('content-type') ?? ''))
      return { kind: 'upstream', response, rounds: round };
    const text = await response.text();
    const answer = parseObject(text);
    if (!answer) return { kind: 'broken', rounds: round };
    usage = sumUsage(usage, rounds.codec.usage(answer));
    const calls = rounds.codec.calls(answer);
    const decision = await decide(rounds, calls, revealed);
    if (decision.kind === 'final' || round >= max) {
      const final = decision.kind === 'final' ? decision.calls : clientCalls(rounds, calls);
      return {
        kind: 'answer',
        body: JSON.stringify(rounds.codec.final(answer, final, earlier, usage)),
        last: response,
        rounds: round,
      };
    }
    earlier.push(answer);
    appended.push(...rounds.codec.turn(answer), ...rounds.codec.results(decision.results));
    if (rounds.declareFound) for (const name of decision.found) revealed.add(name);
    response = await rounds.send(rounds.body(appended, revealed));
  }
}

/**
 * The client's event stream for a stream request, from its first upstream answer: the rounds'
 * events as one answer, keep-alive comments while a later round waits, and an error event in
 * the protocol's shape when a round fails (the status has been sent by then): a later round's
 * error answer, or a stream that breaks (cut short before its protocol's end, garbage for an
 * event, an event past `maxEventBytes`, a read that fails or times out).
 *
 * @example
 * for await (const text of streamRounds(rounds, first)) writer.write(text)
 */
export async function* streamRounds(
  rounds: SearchRounds,
  first: Response,
  onRounds?: (count: number) => void,
): AsyncGenerator<string> {
  const max = rounds.maxRounds ?? MAX_SEARCH_ROUNDS;
  const state = rounds.codec.stream();
  const appended: string[] = [];
  const revealed = new Set<string>();
  let usage: unknown;
  let response = first;
  for (let round = 1; ; round++) {
    onRounds?.(round);
    if (round > 1) state.next();
    if (!response.body) return;
    const events = sseEvents(response.body, rounds.maxEventBytes ? { maxEventBytes: rounds.maxEventBytes } : {});
    try {
      for await (const event of events) {
        // An event without data (a bare `event:` line) carries nothing to read or relay.
        if (event.data === '') continue;
        for (const out of state.push(event)) yield sseText(out);
      }
    } catch (error) {
      if (rounds.signal?.aborted) throw error;
      const failure = streamFailure(error);
      yield sseText(state.error(failure.type, failure.message));
      return;
    }
    const end = state.end();
    if (end.failed) return;
    if (!end.complete) {
      // Closing the answer here would hand the client a cut stream as a finished one.
      yield sseText(state.error('api_error', 'the upstream stream ended before its answer was complete'));
      return;
    }
    usage = sumUsage(usage, end.usage);
    const decision = await decide(rounds, end.calls, revealed);
    if (decision.kind === 'final' || round >= max) {
      const final = decision.kind === 'final' ? decision.calls : clientCalls(rounds, end.calls);
      for (const out of state.close(final, usage)) yield sseText(out);
      return;
    }
    appended.push(...end.turn, ...rounds.codec.results(decision.results));
    if (rounds.declareFound) for (const name of decision.found) revealed.add(name);
    const pending = rounds.send(rounds.body(appended, revealed));
    try {
      for await (const _ of keepAlive(pending, rounds.keepAliveMs)) yield KEEP_ALIVE;
      response = await pending;
    } catch (error) {
      yield sseText(roundError(state.error.bind(state), error));
      return;
    }
    if (!response.ok) {
      const detail = await response.text().catch(() => '');
      yield sseText(
        state.error(
          'api_error',
          `the upstream failed during a tool search round (${response.status}): ${detail.slice(0, 300)}`,
        ),
      );
      return;
    }
  }
}

async function* keepAlive(pending: Promise<Response>, everyMs: number): AsyncGenerator<'tick'> {
  const ticks = ticksUntil(pending, everyMs);
  while (true) {
    const step = await ticks.next();
    if (step.done) return;
    yield 'tick';
  }
}

function roundError(error: (type: string, message: string) => SseEvent, cause: unknown): SseEvent {
  if (cause instanceof FirstByteTimeout)
    return error('timeout_error', `the upstream did not answer a tool search round: ${cause.message}`);
  return error('api_error', 'the upstream could not be reached during a tool search round');
}
