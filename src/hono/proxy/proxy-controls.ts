/**
 * The per-request controls a client may send, all optional: `x-loopctl-selector` (a
 * selector name), `x-loopctl-k` (an integer from 1 to `LIMITS.maxK`), `x-loopctl-policy` (a tool policy,
 * see `tool-policy.ts`) and `x-loopctl-bypass: 1` (forward untouched). Bad values are refused,
 * never guessed at.
 */
import { LIMITS } from '../limits.js';
import { ProxyRequestError } from './request-error.js';
import type { ToolPolicy } from './tool-policy.js';
import { TOOL_POLICIES } from './tool-policy.js';

/** The controls of one request, defaults applied. */
export interface ProxyControls {
  readonly selector: string;
  /** Whether the selector was named by the request (not the server default). */
  readonly explicitSelector: boolean;
  readonly k: number;
  readonly policy: ToolPolicy;
  readonly bypass: boolean;
}

/**
 * Read the controls from `headers`. Throws {@link ProxyRequestError} (400) on an unknown
 * selector, a `k` outside 1..`LIMITS.maxK`, or a bypass value other than `1`/`true`/`0`/`false`.
 *
 * @example
 * proxyControls(request.headers, { names: ['keyword', 'bm25'], selector: 'keyword', k: 8 })
 */
export function proxyControls(
  headers: Headers,
  defaults: {
    readonly names: readonly string[];
    readonly selector: string;
    readonly k: number;
    readonly policy?: ToolPolicy;
  },
): ProxyControls {
  const bypassText = headers.get('x-loopctl-bypass')?.trim().toLowerCase();
  if (bypassText !== undefined && !['1', 'true', '0', 'false'].includes(bypassText)) {
    throw new ProxyRequestError(400, 'x-loopctl-bypass must be 1 (or true) to bypass selection', 'x-loopctl-bypass');
  }
  const selectorText = headers.get('x-loopctl-selector')?.trim();
  if (selectorText !== undefined && !defaults.names.includes(selectorText)) {
    throw new ProxyRequestError(
      400,
      `x-loopctl-selector: unknown selector "${selectorText.slice(0, 40)}"; one of ${defaults.names.join(', ')}`,
      'x-loopctl-selector',
    );
  }
  const kText = headers.get('x-loopctl-k')?.trim();
  let k = defaults.k;
  if (kText !== undefined) {
    k = /^\d{1,3}$/.test(kText) ? Number(kText) : Number.NaN;
    if (!(k >= LIMITS.minK && k <= LIMITS.maxK)) {
      throw new ProxyRequestError(
        400,
        `x-loopctl-k must be an integer from ${LIMITS.minK} to ${LIMITS.maxK}, got "${kText.slice(0, 20)}"`,
        'x-loopctl-k',
      );
    }
  }
  const policyText = headers.get('x-loopctl-policy')?.trim().toLowerCase();
  if (policyText !== undefined && !(TOOL_POLICIES as readonly string[]).includes(policyText)) {
    throw new ProxyRequestError(
      400,
      `x-loopctl-policy must be one of ${TOOL_POLICIES.join(', ')}, got "${policyText.slice(0, 20)}"`,
      'x-loopctl-policy',
    );
  }
  return {
    selector: selectorText ?? defaults.selector,
    explicitSelector: selectorText !== undefined,
    k,
    policy: (policyText as ToolPolicy | undefined) ?? defaults.policy ?? 'auto',
    bypass: bypassText === '1' || bypassText === 'true',
  };
}
