/**
 * What the proxy decided for one request, as the client reads it: `x-loopctl-*` headers (tools
 * registered and advertised, tokens saved, the policy, why it skipped or fell open) and a
 * `server-timing` entry for its own time before the upstream call.
 */
import type { ResolvedPolicy, SkipReason } from './tool-policy.js';

/** What the proxy decided for one request, reported in `x-loopctl-*` headers. */
export interface Outcome {
  readonly registered: number;
  readonly advertised: number;
  readonly tokensSaved: number;
  readonly policy?: ResolvedPolicy;
  readonly fellOpen?: string;
  readonly skipped?: SkipReason;
  /** Stable policy: tools listed after the last message, callable through `call_tool`. */
  readonly revealed?: number;
  /** Milliseconds the proxy spent before calling the upstream (read, parse, select, splice). */
  readonly ms?: number;
  /** Why the tools were ranked by a cheaper selector than asked (a spent budget). */
  readonly degraded?: string;
  /** What the selector warned of while it still ranked (e.g. the lexical half only). */
  readonly warning?: string;
  /** Learning on: how many learned examples shaped the selection (0: none did). */
  readonly learned?: number;
}

/**
 * The outcome of a request forwarded with its `count` tools untouched.
 *
 * @example
 * untouched(3, 'under-k') // { registered: 3, advertised: 3, tokensSaved: 0, skipped: 'under-k' }
 */
export function untouched(count: number, skipped: SkipReason, policy?: ResolvedPolicy): Outcome {
  return { registered: count, advertised: count, tokensSaved: 0, skipped, ...(policy ? { policy } : {}) };
}

/**
 * Set `outcome`'s headers on the client's answer.
 *
 * @example
 * reportOutcome(headers, outcome) // headers.get('x-loopctl-advertised') === '9'
 */
export function reportOutcome(headers: Headers, outcome: Outcome): void {
  headers.set('x-loopctl-registered', String(outcome.registered));
  headers.set('x-loopctl-advertised', String(outcome.advertised));
  headers.set('x-loopctl-tokens-saved', String(outcome.tokensSaved));
  if (outcome.policy !== undefined) headers.set('x-loopctl-policy', outcome.policy);
  if (outcome.revealed !== undefined) headers.set('x-loopctl-revealed', String(outcome.revealed));
  if (outcome.fellOpen !== undefined) headers.set('x-loopctl-fell-open', headerText(outcome.fellOpen));
  if (outcome.skipped !== undefined) headers.set('x-loopctl-skipped', outcome.skipped);
  if (outcome.degraded !== undefined) headers.set('x-loopctl-degraded', headerText(outcome.degraded));
  if (outcome.warning !== undefined) headers.set('x-loopctl-warning', headerText(outcome.warning));
  if (outcome.learned !== undefined) headers.set('x-loopctl-learned', String(outcome.learned));
  if (outcome.ms !== undefined)
    headers.append('server-timing', `loopctl;dur=${outcome.ms.toFixed(2)};desc="proxy before upstream"`);
}

/** A header-safe rendering of a reason: printable ASCII, bounded. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 200);
}
