/**
 * The plan step of the request path: the tool policy consulted once (`decideTools`), the
 * selection it asks for (under the new-tool-list budget), and what the plan makes of the
 * request: the edits to the client's body, the outcome headers, the search rounds when the proxy
 * answers the model's `find_tools`, and (stable policy, long prompts) the tail reveal.
 */

import type { ToolSchema } from '../../registry/schema.js';
import { searchTools } from '../../select/search-tools.js';
import type { AsyncToolSelector } from '../../select/selector.js';
import { approxTokenCounter } from '../../tokens/token-counter.js';
import { applyEdits, historyEdits, toolsEdit } from './body-edits.js';
import type { Edit } from './json-spans.js';
import { RequestLearning } from './learn/request-learning.js';
import { metaEntries, revealText, SEARCH_RESULTS } from './meta-tools.js';
import type { ProxyControls } from './proxy-controls.js';
import type { Outcome } from './proxy-outcome.js';
import { untouched } from './proxy-outcome.js';
import type { ProxyRequest } from './proxy-protocol.js';
import type { RequestContext } from './request-context.js';
import type { SearchRounds } from './search-rounds.js';
import { selectTools } from './select-tools.js';
import type { ToolPlan } from './tool-policy.js';
import { decideTools } from './tool-policy.js';

/** Anthropic's cache-read price: what a round re-reading a cached conversation costs per token. */
const UNCACHED_ROUND_SHARE = 0.1;
/** What a client whose budget of new tool lists is spent is ranked with: no vectors, no writes. */
const LEXICAL_SELECTOR = 'bm25';

/** The search rounds of a request, but for the upstream call (the forward step adds it). */
export type RoundsPlan = Omit<SearchRounds, 'send'>;

/** What the plan step hands on: the edits to the client's text, the outcome, the rounds. */
export interface Planned {
  readonly edits: readonly Edit[];
  readonly outcome: Outcome;
  readonly rounds?: RoundsPlan;
}

/**
 * Plan one parsed request.
 *
 * @example
 * const { edits, outcome, rounds } = await planRequest(ctx, request, controls)
 */
export async function planRequest(
  ctx: RequestContext,
  request: ProxyRequest,
  controls: ProxyControls,
): Promise<Planned> {
  const { config, protocol } = ctx;
  const started = Date.now();
  const learning =
    config.learning && request.selectable.length > 0
      ? await RequestLearning.begin(config.learning, ctx.raw.headers, config.auth, request, ctx.waitUntil)
      : undefined;
  const selector = new RequestSelector(ctx, controls.selector, controls.k, learning);
  const decision = await decideTools(
    request,
    {
      policy: controls.policy,
      prefixCache: config.prefixCache,
      upstreamCaches: protocol.upstream.cachesPrefixes(config.upstreams[protocol.upstream.name]),
      minDeferredTokens: config.minDeferredTokens,
      bypass: controls.bypass,
      k: controls.k,
    },
    async (context) => {
      await selector.admit(request.selectable);
      return selectTools(() => selector.resolve(), context, request.selectable, ctx.signal);
    },
  );
  const { selection } = decision;
  const degraded = [selector.degraded, learning?.degraded].filter((reason) => reason !== undefined).join('; ');
  const notes = {
    ...(degraded !== '' ? { degraded } : {}),
    ...(learning ? { learned: learning.learned } : {}),
    ...(selection?.fellOpen === undefined && selection?.warnings.length
      ? { warning: selection.warnings.join('; ') }
      : {}),
  };
  let planned: Planned;
  if (decision.kind === 'skip')
    planned = {
      edits: [],
      outcome: { ...untouched(request.tools.length, decision.skipped, decision.policy), ...notes },
    };
  else {
    const { plan } = decision;
    const tail = await tailReveal(ctx, request, plan, selector);
    const forwarded = plannedBody(request, plan, tail);
    planned = {
      edits: forwarded.edits([], new Set()),
      outcome: { ...forwarded.outcome, ...(tail.length > 0 ? { revealed: tail.length } : {}), ...notes },
      ...(plan.meta ? { rounds: roundsPlan(ctx, request, plan, forwarded.body, selector, tail) } : {}),
    };
  }
  if (learning && selection?.fellOpen === undefined && planned.outcome.fellOpen === undefined) {
    // Detached: storing what the request taught never delays or fails it.
    const recording = learning.record();
    ctx.waitUntil?.(recording);
  }
  // A cold corpus can hold the event loop for seconds (WASM embedding), long enough for an idle
  // keep-alive connection to the upstream to be closed by the other side. One turn of the event
  // loop lets the runtime notice before fetch reuses it.
  if (selection && Date.now() - started > 1000) await new Promise((done) => setTimeout(done, 0));
  return planned;
}

/**
 * The request's selector: the one asked for, or `bm25` once the client's budget of new tool
 * lists for the dense selectors is spent; loaded on first use, at most once.
 */
class RequestSelector {
  #name: string;
  #selector: AsyncToolSelector | undefined;
  /** Why the tools are ranked by a cheaper selector than asked. */
  degraded: string | undefined;

  constructor(
    private readonly ctx: RequestContext,
    name: string,
    private readonly k: number,
    private readonly learning: RequestLearning | undefined,
  ) {
    this.#name = name;
  }

  /** Charge a new tool list to the client's budget (dense selectors only), or fall back. */
  async admit(list: readonly ToolSchema[]): Promise<void> {
    const { selectors, admitted, newLists, auth } = this.ctx.config;
    if (!selectors.isDense(this.#name) || admitted.has(list)) return;
    const refused = await newLists.take(await clientOf(this.ctx.raw, auth));
    if (refused === undefined) admitted.add(list);
    else {
      this.#name = LEXICAL_SELECTOR;
      this.degraded = `ranked with ${LEXICAL_SELECTOR}: ${refused}`;
    }
  }

  // k counts the client's tools; the proxy's own find_tools / call_tool come on top.
  async resolve(): Promise<AsyncToolSelector> {
    if (!this.#selector) {
      const base = await this.ctx.config.selectors.get(this.#name, this.k);
      this.#selector = this.learning ? this.learning.wrap(base) : base;
    }
    return this.#selector;
  }

  /** The selector, once loaded. */
  current(): AsyncToolSelector | undefined {
    return this.#selector;
  }
}

/**
 * Who a request's budget is charged to: in token mode every holder of the proxy token is one
 * client; in pass-through mode, each provider key (by its SHA-256: the key itself is never kept).
 */
async function clientOf(request: Request, auth: RequestContext['config']['auth']): Promise<string> {
  if (auth === 'token') return 'token';
  const credential = request.headers.get('authorization') ?? request.headers.get('x-api-key') ?? '';
  const { digestHex } = await import('../../digest.js');
  return digestHex(['loopctl/proxy-client/v1', credential]);
}

/**
 * Stable policy, long prompts: the latest user message's own selection, minus the loaded set,
 * to list at the tail. A search round would re-read the whole (long) prompt; the list costs
 * its own few hundred tokens, after the cached prefix.
 */
async function tailReveal(
  ctx: RequestContext,
  request: ProxyRequest,
  plan: ToolPlan,
  selector: RequestSelector,
): Promise<ToolSchema[]> {
  const { cache } = request.protocol;
  if (
    plan.policy !== 'stable' ||
    !plan.meta?.call ||
    request.query === undefined ||
    request.query === request.firstQuery
  )
    return [];
  if (cache.cachesTail(request)) return []; // automatic caching would cache the list
  const conversationChars =
    request.text.length - (request.toolsSpan ? request.toolsSpan.end - request.toolsSpan.start : 0);
  // A search round re-reads the conversation: at the cached price where it is cached; at full
  // price where no breakpoint reaches the messages (Anthropic caches nothing after the last
  // one), which makes the list worth it on a prompt a tenth as long.
  const { tailRevealTokens } = ctx.config;
  const threshold = cache.conversationCached(request) ? tailRevealTokens : tailRevealTokens * UNCACHED_ROUND_SHARE;
  if (conversationChars / 4 < threshold) return [];
  const latest = await selectTools(
    () => selector.resolve(),
    { turn: request.turn, latestUserMessage: request.query, conversation: request.conversation },
    request.selectable,
    ctx.signal,
  );
  if (latest.fellOpen !== undefined) return [];
  const loaded = new Set(plan.kept);
  return request.tools.flatMap((tool, index) =>
    tool.selectable && !loaded.has(index) && latest.names.has(tool.name) && tool.schema ? [tool.schema] : [],
  );
}

/** The body of a round: the conversation with `appended` entries, `revealed` tools declared. */
type RoundBody = (appended: readonly string[], revealed: ReadonlySet<string>) => string;

/** The forwarded body and the headers' report for one request, by its tool plan. */
function plannedBody(
  request: ProxyRequest,
  plan: ToolPlan,
  tail: readonly ToolSchema[],
): {
  body: RoundBody;
  edits: (appended: readonly string[], revealed: ReadonlySet<string>) => Edit[];
  outcome: Outcome;
} {
  const { tools, costs, protocol } = request;
  const lead = plan.meta ? metaEntries(protocol, plan.meta) : [];
  const history: Edit[] = plan.meta?.call ? historyEdits(request, plan.rewritten, plan.meta.call) : [];
  const note = tail.length > 0 && plan.meta?.call ? revealText(tail, plan.meta.call) : undefined;
  const tailNote = note !== undefined ? protocol.edits.tail(request, note) : { entries: [] };
  const edits = (appended: readonly string[], revealed: ReadonlySet<string>): Edit[] => {
    const kept =
      revealed.size === 0
        ? plan.kept
        : tools.flatMap((tool, index) => (plan.kept.includes(index) || revealed.has(tool.name) ? [index] : []));
    return [
      toolsEdit(request, kept, plan.move, lead),
      ...history,
      tailNote.edit,
      protocol.edits.append(request, [...tailNote.entries, ...appended]),
    ].filter((edit): edit is Edit => edit !== undefined);
  };
  const keptSet = new Set(plan.kept);
  // Only what would have been rendered counts: deferred tools cost nothing either way.
  let tokensSaved = -[...lead, ...(note !== undefined ? [note] : [])].reduce(
    (sum, entry) => sum + approxTokenCounter.count(entry),
    0,
  );
  costs.forEach((cost, index) => {
    if (!keptSet.has(index) && !(tools[index]?.deferred ?? false)) tokensSaved += cost;
  });
  return {
    body: (appended, revealed) => applyEdits(request.text, edits(appended, revealed)),
    edits,
    outcome: {
      registered: tools.length,
      advertised: plan.kept.length + lead.length,
      tokensSaved,
      policy: plan.policy,
      ...(plan.fellOpen !== undefined ? { fellOpen: plan.fellOpen } : {}),
    },
  };
}

/** What the search rounds of a planned request need, but for the upstream call. */
function roundsPlan(
  ctx: RequestContext,
  request: ProxyRequest,
  plan: ToolPlan,
  body: RoundBody,
  selector: RequestSelector,
  tail: readonly ToolSchema[],
): RoundsPlan {
  const meta = plan.meta as NonNullable<ToolPlan['meta']>;
  const byName = new Map(request.selectable.map((tool) => [tool.name, tool]));
  const surface = new Set(
    [...plan.kept.map((index) => request.tools[index]?.name ?? ''), ...tail.map((tool) => tool.name)].filter(
      (name) => name !== '',
    ),
  );
  const { signal } = ctx;
  return {
    codec: request.protocol.codec,
    meta,
    registered: new Set(request.tools.map((tool) => tool.name).filter((name) => name !== '')),
    surface,
    declareFound: meta.call === undefined,
    body,
    keepAliveMs: ctx.config.keepAliveMs,
    maxEventBytes: ctx.config.maxSseEventBytes,
    signal,
    async search(query: string, exclude: ReadonlySet<string>): Promise<ToolSchema[]> {
      const current = selector.current();
      const hits = await searchTools(query, request.selectable, {
        ...(current ? { selector: current } : {}),
        k: SEARCH_RESULTS,
        exclude,
        signal,
      });
      return hits.map((hit) => byName.get(hit.name)).filter((tool): tool is ToolSchema => tool !== undefined);
    },
  };
}
