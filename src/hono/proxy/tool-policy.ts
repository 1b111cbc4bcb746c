/**
 * Which tools a request forwards, and how the model reaches the rest: the proxy's tool
 * policies. Selection that raises the bill is not selection users keep, so the default is
 * cache-neutral:
 *
 * - `stable`: one loaded set for the whole conversation, selected from its first user message
 *   (so every request of the conversation, on any isolate, forwards the same `tools` bytes and
 *   the provider's cached prefix holds). The other tools stay reachable through the proxy's
 *   server-side search: `find_tools` finds them and `call_tool` calls them, so revealing a tool
 *   never rewrites the prefix; earlier calls of such tools are rewritten into `call_tool` form.
 * - `per-message`: re-selected from every new user message (the cheapest forwarded bytes when
 *   nothing is cached); `find_tools` reveals the rest, which is then declared.
 * - `narrow`: re-selected from every new user message, nothing else reachable (the behaviour
 *   before tool search; kept to compare and for clients that want it).
 * - `auto` (default): `stable` when the request's prefix is cached (Anthropic: the client set a
 *   `cache_control` breakpoint; OpenAI: the upstream caches prefixes by itself, or
 *   `PROXY_PREFIX_CACHE=on`), else `per-message`.
 *
 * Requests that use the vendor's own tool search, or `allowed_tools`, are not narrowed at all.
 */
import type { SelectionContext } from '../../select/selector.js';
import type { BreakpointMove } from './cache-breakpoint.js';
import { breakpointMove } from './cache-breakpoint.js';
import { keepSet } from './keep-set.js';
import type { MetaNames } from './meta-tools.js';
import { metaNames } from './meta-tools.js';
import type { ClientTool, ProxyRequest } from './proxy-protocol.js';
import type { ToolSelection } from './select-tools.js';

/** A tool policy by name (`PROXY_POLICY`, `x-loopctl-policy`). */
export type ToolPolicy = 'auto' | 'stable' | 'per-message' | 'narrow';

/** The policies a request can resolve to. */
export type ResolvedPolicy = Exclude<ToolPolicy, 'auto'>;

/** Every policy name. */
export const TOOL_POLICIES: readonly ToolPolicy[] = ['auto', 'stable', 'per-message', 'narrow'];

/** Whether the upstream caches the request prefix (`PROXY_PREFIX_CACHE`). */
export type PrefixCacheMode = 'auto' | 'on' | 'off';

/** Why a request went upstream with its tools untouched. */
export type SkipReason =
  | 'bypass'
  | 'no-tools'
  | 'under-k'
  | 'allowed-tools'
  | 'native-search'
  | 'previous-response'
  | 'small-registry';

/** How the policy is applied to one request. */
export interface PolicyOptions {
  readonly policy: ToolPolicy;
  readonly prefixCache: PrefixCacheMode;
  /** Whether this protocol's upstream caches prompt prefixes by itself (OpenAI's own API does). */
  readonly upstreamCaches: boolean;
  /**
   * Stable policy: the tools left out must come to at least this many tokens, else every tool
   * is forwarded (a small registry costs less cached whole than searched). Default 8192.
   */
  readonly minDeferredTokens: number;
}

/** What the policy decided for one request. */
export interface ToolPlan {
  readonly policy: ResolvedPolicy;
  /** Indices of the client tools forwarded, ascending. */
  readonly kept: readonly number[];
  readonly move?: BreakpointMove;
  /** Set when the proxy offers its search (and, stable, its call) tool and answers them. */
  readonly meta?: MetaNames;
  /** Stable: client tools the surface leaves out whose earlier calls are rewritten into `call_tool` form. */
  readonly rewritten: ReadonlySet<string>;
  readonly fellOpen?: string;
  readonly warnings: readonly string[];
}

/** What the policy decided for one request: its tools untouched (and why), or a plan. */
export type PolicyDecision =
  | {
      readonly kind: 'skip';
      readonly skipped: SkipReason;
      readonly policy?: ResolvedPolicy;
      /** Set when the skip came after a selection (a small registry). */
      readonly selection?: ToolSelection;
    }
  | { readonly kind: 'plan'; readonly plan: ToolPlan; readonly selection: ToolSelection };

/** {@link PolicyOptions} plus what the client's controls say of this request. */
export interface DecisionOptions extends PolicyOptions {
  /** The client asked for its tools untouched (`x-loopctl-bypass`). */
  readonly bypass: boolean;
  /** Client tools kept per request: a request listing fewer goes untouched. */
  readonly k: number;
}

/**
 * The policy, consulted once for one request: the policy it resolves to, whether it goes
 * untouched, and else the plan from the selection `select` makes for the policy's query.
 *
 * @example
 * const decision = await decideTools(request, options, (context) => selectTools(resolve, context, request.selectable, signal))
 * if (decision.kind === 'plan') decision.plan.kept // the loaded set
 */
export async function decideTools(
  request: ProxyRequest,
  options: DecisionOptions,
  select: (context: SelectionContext) => Promise<ToolSelection>,
): Promise<PolicyDecision> {
  const count = request.tools.length;
  if (options.bypass) return { kind: 'skip', skipped: 'bypass' };
  if (count === 0) return { kind: 'skip', skipped: 'no-tools' };
  const policy = resolvePolicy(request, options);
  if (count < options.k) return { kind: 'skip', skipped: 'under-k', policy };
  const skipped = skipBeforeSelection(request, policy);
  if (skipped) return { kind: 'skip', skipped, policy };
  const selection = await select(selectionContext(request, policy));
  const plan = planTools(request, policy, selection, options);
  return typeof plan === 'string'
    ? { kind: 'skip', skipped: plan, policy, selection }
    : { kind: 'plan', plan, selection };
}

/**
 * What a policy selects from: `stable` the conversation's first user message alone (the loaded
 * set is fixed for the conversation), the others the conversation as it stands.
 *
 * @example
 * selectionContext(request, 'stable') // { turn: 1, latestUserMessage: request.firstQuery, … }
 */
export function selectionContext(request: ProxyRequest, policy: ResolvedPolicy): SelectionContext {
  const query = selectionQuery(request, policy);
  return policy === 'stable'
    ? { turn: 1, latestUserMessage: query, conversation: query !== undefined ? [{ role: 'user', content: query }] : [] }
    : { turn: request.turn, latestUserMessage: query, conversation: request.conversation };
}

/** The default {@link PolicyOptions.minDeferredTokens}. */
export const MIN_DEFERRED_TOKENS = 8192;

/**
 * Whether the request's prefix is cached upstream, which makes a stable `tools` array worth more
 * than a narrow one.
 *
 * @example
 * prefixCached(request, { prefixCache: 'auto', upstreamCaches: false }) // Anthropic: true when a cache_control is set
 */
export function prefixCached(
  request: ProxyRequest,
  options: Pick<PolicyOptions, 'prefixCache' | 'upstreamCaches'>,
): boolean {
  if (options.prefixCache !== 'auto') return options.prefixCache === 'on';
  return request.protocol.cache.prefixCached(request, options.upstreamCaches);
}

/**
 * The policy a request resolves to.
 *
 * @example
 * resolvePolicy(request, options) // 'stable' | 'per-message' | 'narrow'
 */
export function resolvePolicy(request: ProxyRequest, options: PolicyOptions): ResolvedPolicy {
  if (options.policy !== 'auto') return options.policy;
  return prefixCached(request, options) ? 'stable' : 'per-message';
}

/**
 * Why the request is forwarded with its tools untouched under `policy`, before any selection;
 * undefined when it is planned.
 *
 * @example
 * skipBeforeSelection(request, 'stable') // 'native-search' when the client uses defer_loading
 */
export function skipBeforeSelection(request: ProxyRequest, policy: ResolvedPolicy): SkipReason | undefined {
  if (request.toolChoice.kind === 'allowed') return 'allowed-tools';
  if (policy === 'narrow') return undefined;
  if (request.nativeSearch) return 'native-search';
  return request.protocol.skip(request.body);
}

/**
 * Plan one request from its selection (made from {@link selectionQuery}'s text).
 *
 * @example
 * const plan = planTools(request, 'stable', selection, options)
 * plan.kept // the loaded set; plan.meta?.search // 'find_tools'
 */
export function planTools(
  request: ProxyRequest,
  policy: ResolvedPolicy,
  selection: ToolSelection,
  options: PolicyOptions,
): ToolPlan | SkipReason {
  const { tools, toolChoice } = request;
  const warnings = selection.warnings;
  if (selection.fellOpen !== undefined) {
    return {
      policy,
      kept: tools.map((_, index) => index),
      rewritten: new Set(),
      fellOpen: selection.fellOpen,
      warnings,
    };
  }
  const searchable = policy !== 'narrow' && searchAllowed(request);
  // Stable keeps the loaded set fixed: calls of tools outside it are rewritten, not declared.
  const stable = policy === 'stable' && searchable;
  const keep = keepSet(tools, selection.names, toolChoice, stable ? new Set() : request.called, request.referenced);
  if (keep.fellOpen !== undefined) {
    return { policy, kept: keep.kept, rewritten: new Set(), fellOpen: keep.fellOpen, warnings };
  }
  const keptSet = new Set(keep.kept);
  const leftOut = tools.filter((tool, index) => tool.selectable && !keptSet.has(index));
  if (stable && costOf(request, leftOut) < options.minDeferredTokens) return 'small-registry';
  const meta =
    searchable && leftOut.length > 0 ? metaNames(new Set(tools.map((tool) => tool.name)), stable) : undefined;
  const kept = keep.kept;
  const rewritten = new Set(
    stable && meta ? leftOut.filter((tool) => request.called.has(tool.name)).map((tool) => tool.name) : [],
  );
  const move = request.protocol.cache.movesBreakpoints ? breakpointMove(tools, kept) : undefined;
  return { policy, kept, ...(move ? { move } : {}), ...(meta ? { meta } : {}), rewritten, warnings };
}

/**
 * The query a policy selects from: the first user message for `stable` (fixed for the
 * conversation), the latest for the others.
 *
 * @example
 * selectionQuery(request, 'stable') // request.firstQuery
 */
export function selectionQuery(request: ProxyRequest, policy: ResolvedPolicy): string | undefined {
  return policy === 'stable' ? request.firstQuery : request.query;
}

// The proxy can continue a request with its own turns only where the protocol allows it.
function searchAllowed(request: ProxyRequest): boolean {
  const { body } = request;
  if (typeof body.n === 'number' && body.n > 1) return false; // several choices cannot share one continuation
  return request.protocol.canContinue(body);
}

function costOf(request: ProxyRequest, tools: readonly ClientTool[]): number {
  const index = new Map(request.tools.map((tool, i) => [tool, i]));
  return tools.reduce((sum, tool) => sum + (request.costs[index.get(tool) ?? -1] ?? 0), 0);
}
