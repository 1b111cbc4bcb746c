/**
 * The selecting proxy as a Hono sub-app: `POST /v1/chat/completions` (OpenAI Chat
 * Completions), `POST /v1/messages` (Anthropic Messages), `POST /v1/responses` (OpenAI
 * Responses) and `GET /v1/models` (passed through). Each request's own `tools` are its
 * registry; the tool policy (`tool-policy.ts`) decides what is forwarded and how the model
 * reaches the rest (the proxy's server-side search, `search-rounds.ts`); the keep rules protect
 * the conversation and the vendors' own tool search; the request goes upstream byte for byte
 * except for what the policy rewrites. The answer (JSON or SSE) streams back, with
 * `x-loopctl-*` headers saying what happened.
 */

import type { Context } from 'hono';
import { Hono } from 'hono';
import { errorMessage } from '../../describe-error.js';
import { abortWith } from '../../limits/abort-with.js';
import type { FetchLike } from '../../model/http.js';
import { globalFetch } from '../../model/http.js';
import { mergeOptions } from '../../options.js';
import type { ToolSchema } from '../../registry/schema.js';
import { searchTools } from '../../select/search-tools.js';
import type { AsyncToolSelector, SelectionContext } from '../../select/selector.js';
import { approxTokenCounter } from '../../tokens/token-counter.js';
import { isJsonMediaType } from '../json-media-type.js';
import { LIMITS } from '../limits.js';
import type { UploadBudget } from '../upload-budget.js';
import { uploadBudget } from '../upload-budget.js';
import type { Edit } from './body-edits.js';
import { appendEdit, applyEdits, historyEdits, tailEdit, tailItem, toolsEdit } from './body-edits.js';
import { encodeEditedInSteps, parseObjectInSteps, STEP_CHARS } from './body-in-steps.js';
import { chatRounds } from './chat-rounds.js';
import { relayEvents } from './event-relay.js';
import { clientHeaders, upstreamHeaders } from './forward-headers.js';
import { DEFAULT_MAX_JSON_DEPTH, JsonDepthError, MAX_JSON_DEPTH_LIMIT } from './json-nesting.js';
import { isLargeBody, largeBodyTurn, nextTurn } from './large-body-turn.js';
import { messagesRounds } from './messages-rounds.js';
import { metaEntries, revealText, SEARCH_RESULTS } from './meta-tools.js';
import { hasBreakpoints } from './native-search.js';
import { providerError, streamError } from './provider-errors.js';
import type { ProxyAuthMode, TokenVerifier } from './proxy-auth.js';
import { authorize } from './proxy-auth.js';
import { proxyControls } from './proxy-controls.js';
import { parseProxyRequest } from './proxy-request.js';
import type { ProxyRequest, WireProtocol } from './proxy-types.js';
import { proxyUpstreams } from './proxy-upstreams.js';
import { readBodyText } from './read-body.js';
import { redactedError } from './redacted-error.js';
import { ProxyRequestError } from './request-error.js';
import { clientBody } from './response-body.js';
import { responsesRounds } from './responses-rounds.js';
import type { RoundCodec } from './round-codec.js';
import type { SearchRounds } from './search-rounds.js';
import { jsonRounds, streamRounds } from './search-rounds.js';
import { selectTools } from './select-tools.js';
import { KEEP_ALIVE, MAX_SSE_EVENT_BYTES } from './sse-events.js';
import type { PrefixCacheMode, ResolvedPolicy, SkipReason, ToolPlan, ToolPolicy } from './tool-policy.js';
import { MIN_DEFERRED_TOKENS, planTools, resolvePolicy, selectionQuery, skipBeforeSelection } from './tool-policy.js';
import type { ToolSetBudget } from './tool-set-budget.js';
import { toolSetBudget } from './tool-set-budget.js';
import type { ToolSetCache } from './tool-set-cache.js';
import { toolSetCache } from './tool-set-cache.js';
import { idleLimited, UpstreamIdleTimeout } from './upstream-idle.js';
import { UpstreamUnreachableError } from './upstream-unreachable.js';
import { FirstByteTimeout, firstByteWithin, settledWithin, ticksUntil } from './upstream-wait.js';

/** The proxy's own settings (env: `PROXY_*`). Every field has a default. */
export interface ProxySettings {
  /** Selector when a request names none (`PROXY_SELECTOR`). Default `hybrid`, or `keyword` without an embedder. */
  selector?: string;
  /**
   * The client's tools kept per request when a request sets no `x-loopctl-k` (`PROXY_K`); the
   * proxy's own `find_tools` / `call_tool` come on top. Default 8.
   */
  k?: number;
  /** `token` (default) or `passthrough` (`PROXY_AUTH`); see `proxy-auth.ts`. */
  auth?: ProxyAuthMode;
  /** Upstream for `/v1/chat/completions` and `/v1/responses`, including `/v1` (`PROXY_OPENAI_BASE_URL`). */
  openaiBaseURL?: string;
  /** Upstream origin for `/v1/messages` (`PROXY_ANTHROPIC_BASE_URL`). */
  anthropicBaseURL?: string;
  /**
   * Key the OpenAI-compatible upstream gets in `token` mode (`PROXY_OPENAI_API_KEY`). Default the
   * app model's key when its provider is `openai`; never the key of an Anthropic model.
   */
  openaiApiKey?: string;
  /**
   * Key the Anthropic upstream gets in `token` mode (`PROXY_ANTHROPIC_API_KEY`). Default the app
   * model's key when its provider is `anthropic`; never the key of an OpenAI-compatible model.
   */
  anthropicApiKey?: string;
  /** Largest request body forwarded (`PROXY_MAX_BODY_BYTES`). Default 8 MiB. */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a request body (`PROXY_MAX_JSON_DEPTH`), 1 to
   * 1024; deeper is a 400. Default 128: see `json-nesting.ts`.
   */
  maxJsonDepth?: number;
  /** Tool policy when a request names none (`PROXY_POLICY`): see `tool-policy.ts`. Default `auto`. */
  policy?: ToolPolicy;
  /**
   * Whether the upstream caches prompt prefixes (`PROXY_PREFIX_CACHE`). `auto` (default):
   * Anthropic by the request's `cache_control` breakpoints; OpenAI when the upstream is
   * `api.openai.com` or the request sets `prompt_cache_key`.
   */
  prefixCache?: PrefixCacheMode;
  /** Stable policy: the fewest tokens of left-out tools worth a search (smaller registries go whole). Default 8192. */
  minDeferredTokens?: number;
  /**
   * Stable policy: from a prompt of this many tokens (the conversation, tools aside), the tools
   * the latest user message selects ride after its last message, callable through `call_tool`
   * without a search round (a round re-reads the whole prompt). Default 16384; a tenth of it
   * where no Anthropic breakpoint reaches the messages (a round then re-reads them at full price).
   */
  tailRevealTokens?: number;
  /**
   * Milliseconds the upstream may take to begin its answer (`PROXY_FIRST_BYTE_TIMEOUT_MS`), else
   * a 504 (an error event once a stream's keep-alive has begun). Default 300000; 0: no limit.
   */
  firstByteTimeoutMs?: number;
  /** Milliseconds between SSE keep-alive comments while a stream waits (`PROXY_KEEPALIVE_MS`). Default 10000. */
  keepAliveMs?: number;
  /**
   * Most tools one request may list (`PROXY_MAX_TOOLS`); more is a 400 in the provider's shape.
   * Default 10000, the most any vendor's tool search takes.
   */
  maxTools?: number;
  /**
   * New tool lists one client may bring to the dense selectors per hour
   * (`PROXY_NEW_TOOL_SETS_PER_CLIENT`): each costs embedding work and a vector-cache write. Past
   * it, that client's new lists are ranked with `bm25` (`x-loopctl-degraded` says why). Default 60.
   */
  newToolSetsPerClient?: number;
  /** The same, all clients together (`PROXY_NEW_TOOL_SETS_TOTAL`). Default 600. */
  newToolSetsTotal?: number;
  /**
   * Where those counts live. Default this process's memory (one isolate on Workers);
   * `createWorker` uses the `TOOL_SET_BUDGET` Durable Object when bound, shared by the fleet.
   */
  toolSetBudget?: ToolSetBudget;
  /**
   * Milliseconds the upstream may go silent once its answer has begun (`PROXY_IDLE_TIMEOUT_MS`):
   * a read of its body that waits longer ends the answer, a 504 or an error event in the
   * provider's shape. Default 300000, the first-byte timeout's: a reasoning model may think as
   * long after its first chunk as before it. 0: no limit.
   */
  idleTimeoutMs?: number;
  /**
   * The most bytes one upstream SSE event may reach when the proxy reads the stream (its search
   * rounds) (`PROXY_MAX_SSE_EVENT_BYTES`); past it the stream ends with an error event instead
   * of buffering on. Default 16 MiB (see `MAX_SSE_EVENT_BYTES`).
   */
  maxSseEventBytes?: number;
  /**
   * The fetch used upstream. Default the app's fetch; `startNodeServer` supplies a keep-alive
   * `node:http` one (`node-upstream-fetch.ts`) unless the app was given a fetch.
   */
  fetch?: FetchLike;
}

/** The app's selectors by name (shared, so the proxy reuses warm corpora). */
export interface ProxySelectorTable {
  readonly names: readonly string[];
  get(name: string, k: number): Promise<AsyncToolSelector>;
  /** Whether `name` needs an embedder (the table's own rule). */
  isDense(name: string): boolean;
}

/** Options for {@link proxyRoutes}: the settings plus what the app shares with the proxy. */
export interface ProxyRoutesOptions extends ProxySettings {
  selectors: ProxySelectorTable;
  /** Whether the embedding selectors can run (an embedder is configured). */
  hasEmbedder?: boolean;
  /**
   * Checks the proxy token (`LOOPCTL_TOKEN`) in constant time, e.g. `tokenVerifier(env.LOOPCTL_TOKEN)`;
   * required in `token` mode (without it the proxy answers 503).
   */
  token?: TokenVerifier;
  /**
   * The app's model: its provider's upstream is the default for that protocol, and its
   * `apiKey` (`MODEL_API_KEY`) is what that protocol's upstream sees in `token` mode unless
   * `openaiApiKey` / `anthropicApiKey` says otherwise. It never goes to the other protocol's
   * upstream: an OpenAI key must not reach whatever Anthropic-compatible host is configured.
   */
  model?: { provider?: 'openai' | 'anthropic'; baseURL?: string; apiKey?: string };
  /** Server-side log for unexpected failures (never a key, never sent to clients). */
  onError?: (error: unknown) => void;
  /**
   * What all unfinished request bodies may hold at once, shared with the app's other routes
   * (`createApp` passes its own). Default a budget of its own, `DEFAULT_UPLOAD_BUFFER_BYTES`.
   */
  uploadBudget?: UploadBudget;
}

const DEFAULT_K = 8;
const DEFAULT_MAX_BODY = 8 * 1024 * 1024;
const DEFAULT_FIRST_BYTE_MS = 300_000;
const DEFAULT_KEEP_ALIVE_MS = 10_000;
const DEFAULT_IDLE_MS = 300_000;
const DEFAULT_TAIL_REVEAL_TOKENS = 16_384;
const DEFAULT_MAX_TOOLS = 10_000;
/** Anthropic's cache-read price: what a round re-reading a cached conversation costs per token. */
const UNCACHED_ROUND_SHARE = 0.1;
/** What a client whose budget of new tool lists is spent is ranked with: no vectors, no writes. */
const LEXICAL_SELECTOR = 'bm25';

const CODECS: Record<WireProtocol, RoundCodec> = {
  openai: chatRounds,
  anthropic: messagesRounds,
  responses: responsesRounds,
};
const PATHS: Record<WireProtocol, string> = {
  openai: '/chat/completions',
  anthropic: '/v1/messages',
  responses: '/responses',
};

/** What the proxy decided for one request, reported in `x-loopctl-*` headers. */
interface Outcome {
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
}

/** How one request goes upstream. */
interface Forwarding {
  readonly protocol: WireProtocol;
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Bytes for a large body (encoded in steps), else the text. */
  readonly body: string | Uint8Array<ArrayBuffer> | undefined;
  readonly outcome: Outcome | undefined;
  readonly signal: AbortSignal;
  readonly stream: boolean;
  /** Set when the proxy answers the model's searches. */
  readonly rounds?: Omit<SearchRounds, 'send'>;
}

/**
 * Build the proxy routes. Mount them before any `/v1/*` middleware that would demand another
 * credential: the proxy authenticates by itself (see `proxy-auth.ts`).
 *
 * @example
 * const app = new Hono()
 * app.route('/', proxyRoutes({ selectors: namedSelectors(), token: tokenVerifier(env.LOOPCTL_TOKEN), model: { baseURL: 'https://api.openai.com/v1', apiKey: env.MODEL_API_KEY } }))
 * // client: new OpenAI({ baseURL: 'https://proxy.example/v1', apiKey: env.LOOPCTL_TOKEN })
 */
export function proxyRoutes(options: ProxyRoutesOptions): Hono {
  const defaults = {
    auth: 'token' as ProxyAuthMode,
    k: DEFAULT_K,
    maxBodyBytes: DEFAULT_MAX_BODY,
    maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
    fetch: globalFetch,
    policy: 'auto' as ToolPolicy,
    prefixCache: 'auto' as PrefixCacheMode,
    minDeferredTokens: MIN_DEFERRED_TOKENS,
    firstByteTimeoutMs: DEFAULT_FIRST_BYTE_MS,
    keepAliveMs: DEFAULT_KEEP_ALIVE_MS,
    idleTimeoutMs: DEFAULT_IDLE_MS,
    maxSseEventBytes: MAX_SSE_EVENT_BYTES,
    tailRevealTokens: DEFAULT_TAIL_REVEAL_TOKENS,
    maxTools: DEFAULT_MAX_TOOLS,
  };
  const {
    selectors,
    hasEmbedder,
    model,
    token,
    onError,
    auth,
    k,
    maxBodyBytes,
    maxJsonDepth,
    fetch: fetchUpstream,
    policy: defaultPolicy,
    prefixCache,
    minDeferredTokens,
    firstByteTimeoutMs: firstByteMs,
    keepAliveMs,
    idleTimeoutMs: idleMs,
    maxSseEventBytes,
    tailRevealTokens,
    maxTools,
  } = mergeOptions(defaults, options);
  if (!(Number.isInteger(maxTools) && maxTools >= 1))
    throw new RangeError(`proxy maxTools must be a positive integer, got ${maxTools}`);
  const newLists =
    options.toolSetBudget ??
    toolSetBudget({ perClient: options.newToolSetsPerClient, total: options.newToolSetsTotal });
  // Tool lists (one object per tools text, see tool-set-cache.ts) that budget has paid for.
  const admitted = new WeakSet<readonly ToolSchema[]>();
  const defaultSelector = options.selector ?? (hasEmbedder ? 'hybrid' : 'keyword');
  const budget = options.uploadBudget ?? uploadBudget();
  if (!selectors.names.includes(defaultSelector)) {
    throw new RangeError(`proxy selector "${defaultSelector}" is not one of ${selectors.names.join(', ')}`);
  }
  if (!hasEmbedder && selectors.isDense(defaultSelector)) {
    throw new RangeError(`proxy selector "${defaultSelector}" needs an embedder, and none is configured`);
  }
  if (!(Number.isInteger(k) && k >= LIMITS.minK && k <= LIMITS.maxK)) {
    throw new RangeError(`proxy k must be an integer from ${LIMITS.minK} to ${LIMITS.maxK}, got ${k}`);
  }
  if (!(Number.isInteger(maxJsonDepth) && maxJsonDepth >= 1 && maxJsonDepth <= MAX_JSON_DEPTH_LIMIT)) {
    throw new RangeError(
      `proxy maxJsonDepth must be an integer from 1 to ${MAX_JSON_DEPTH_LIMIT}, got ${maxJsonDepth}`,
    );
  }
  if (!(Number.isFinite(firstByteMs) && firstByteMs >= 0))
    throw new RangeError(`proxy firstByteTimeoutMs must be 0 or more, got ${firstByteMs}`);
  if (!(Number.isFinite(keepAliveMs) && keepAliveMs > 0))
    throw new RangeError(`proxy keepAliveMs must be more than 0, got ${keepAliveMs}`);
  if (!(Number.isFinite(idleMs) && idleMs >= 0))
    throw new RangeError(`proxy idleTimeoutMs must be 0 or more, got ${idleMs}`);
  if (!(Number.isSafeInteger(maxSseEventBytes) && maxSseEventBytes > 0))
    throw new RangeError(`proxy maxSseEventBytes must be a positive integer, got ${maxSseEventBytes}`);
  const upstreams = proxyUpstreams(options, model);
  const openaiBase = upstreams.openai;
  // OpenAI's own API caches every prefix of 1,024 tokens or more, unasked.
  const openaiCaches = openaiBase !== undefined && /^https:\/\/api\.openai\.com(?:\/|$)/i.test(openaiBase);
  // One key per upstream: the model's key only for its own protocol.
  const modelKey = (provider: 'openai' | 'anthropic'): string | undefined =>
    (model?.provider ?? 'openai') === provider ? model?.apiKey : undefined;
  const apiKeys: Record<'openai' | 'anthropic', string | undefined> =
    auth === 'token'
      ? {
          openai: options.openaiApiKey ?? modelKey('openai'),
          anthropic: options.anthropicApiKey ?? modelKey('anthropic'),
        }
      : { openai: undefined, anthropic: undefined };
  // Upstream errors may quote the key they were sent: every configured key is scrubbed from them.
  const secrets = [...new Set([options.openaiApiKey, options.anthropicApiKey, model?.apiKey])].filter(
    (key): key is string => Boolean(key),
  );
  // Parsed tool lists per distinct tools text, one cache per protocol (the dialects differ).
  const toolSets: Record<WireProtocol, ToolSetCache> = {
    openai: toolSetCache(),
    anthropic: toolSetCache(),
    responses: toolSetCache(),
  };
  const app = new Hono();

  async function gate(c: Context, protocol: WireProtocol): Promise<Response | undefined> {
    if (!upstreams[protocol]) {
      const variable = protocol === 'anthropic' ? 'PROXY_ANTHROPIC_BASE_URL' : 'PROXY_OPENAI_BASE_URL';
      return providerError(
        protocol,
        503,
        `no ${protocol === 'anthropic' ? 'anthropic' : 'openai'} upstream is configured on this proxy (set ${variable})`,
      );
    }
    const outcome = await authorize(c.req.raw, auth, token);
    if (outcome === 'not_configured')
      return providerError(protocol, 503, 'the proxy token (LOOPCTL_TOKEN) is not set on this server');
    if (outcome === 'unauthorized') {
      return providerError(
        protocol,
        401,
        'a valid proxy token is required (Authorization: Bearer <token> or x-api-key: <token>)',
        {
          headers: { 'www-authenticate': 'Bearer realm="loopctl"' },
        },
      );
    }
    return undefined;
  }

  /** The forwarded body and the headers' report for one request, by its tool plan. */
  function planned(
    request: ProxyRequest,
    plan: ToolPlan,
    tail: readonly ToolSchema[] = [],
  ): {
    body: (appended: readonly string[], revealed: ReadonlySet<string>) => string;
    edits: (appended: readonly string[], revealed: ReadonlySet<string>) => Edit[];
    outcome: Outcome;
  } {
    const { tools, costs } = request;
    const lead = plan.meta ? metaEntries(request.protocol, plan.meta) : [];
    const history: Edit[] = plan.meta?.call ? historyEdits(request, plan.rewritten, plan.meta.call) : [];
    const note = tail.length > 0 && plan.meta?.call ? revealText(tail, plan.meta.call) : undefined;
    const noteEdit = note !== undefined && request.protocol !== 'responses' ? tailEdit(request, note) : undefined;
    const noteItems = note !== undefined && request.protocol === 'responses' ? [tailItem(note)] : [];
    const edits = (appended: readonly string[], revealed: ReadonlySet<string>): Edit[] => {
      const kept =
        revealed.size === 0
          ? plan.kept
          : tools.flatMap((tool, index) => (plan.kept.includes(index) || revealed.has(tool.name) ? [index] : []));
      return [
        toolsEdit(request, kept, plan.move, lead),
        ...history,
        noteEdit,
        appendEdit(request, [...noteItems, ...appended]),
      ].filter((edit): edit is Edit => edit !== undefined);
    };
    const body = (appended: readonly string[], revealed: ReadonlySet<string>): string =>
      applyEdits(request.text, edits(appended, revealed));
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
      body,
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

  async function handle(c: Context, protocol: WireProtocol): Promise<Response> {
    const arrived = performance.now();
    try {
      const refused = await gate(c, protocol);
      if (refused) return refused;
      // A web page can post text/plain, a form or an untyped body without a CORS preflight.
      if (!isJsonMediaType(c.req.header('content-type')))
        return providerError(
          protocol,
          415,
          'the request body must be JSON (Content-Type: application/json or application/…+json)',
        );
      const controls = proxyControls(c.req.raw.headers, {
        names: selectors.names,
        selector: defaultSelector,
        k,
        policy: defaultPolicy,
      });
      if (controls.explicitSelector && !hasEmbedder && selectors.isDense(controls.selector)) {
        throw new ProxyRequestError(
          400,
          `x-loopctl-selector: "${controls.selector}" needs an embedder, and none is configured on this server`,
          'x-loopctl-selector',
        );
      }
      const { text, bytes } = await readBodyText(c.req.raw, maxBodyBytes, budget);
      const parsed = isLargeBody(text.length)
        ? await parseObjectInSteps(text, nextTurn, STEP_CHARS, maxJsonDepth)
        : undefined;
      const request = parseProxyRequest(protocol, text, toolSets[protocol], parsed, maxJsonDepth);
      await largeBodyTurn(text.length);
      const signal = requestSignal(c);
      const count = request.tools.length;
      if (count > maxTools) {
        throw new ProxyRequestError(
          400,
          `the request lists ${count} tools; this proxy takes at most ${maxTools} (PROXY_MAX_TOOLS)`,
          'tools',
        );
      }
      const untouched = (skipped: SkipReason, policy?: ResolvedPolicy): Outcome => ({
        registered: count,
        advertised: count,
        tokensSaved: 0,
        skipped,
        ...(policy ? { policy } : {}),
      });
      // The forwarded text as the client's text and the edits to it, joined or encoded only
      // once it is final.
      let edits: readonly Edit[] = [];
      let outcome: Outcome;
      let rounds: Forwarding['rounds'];
      let degraded: string | undefined;
      let warning: string | undefined;
      const policy = resolvePolicy(request, {
        policy: controls.policy,
        prefixCache,
        upstreamCaches: openaiCaches,
        minDeferredTokens,
      });
      const skipped = controls.bypass
        ? 'bypass'
        : count === 0
          ? 'no-tools'
          : count < controls.k
            ? 'under-k'
            : skipBeforeSelection(request, policy);
      if (skipped) outcome = untouched(skipped, skipped === 'bypass' || skipped === 'no-tools' ? undefined : policy);
      else {
        const started = Date.now();
        let selectorName = controls.selector;
        if (selectors.isDense(selectorName) && !admitted.has(request.selectable)) {
          const refused = await newLists.take(await clientOf(c.req.raw, auth));
          if (refused === undefined) admitted.add(request.selectable);
          else {
            selectorName = LEXICAL_SELECTOR;
            degraded = `ranked with ${LEXICAL_SELECTOR}: ${refused}`;
          }
        }
        let selector: AsyncToolSelector | undefined;
        // k counts the client's tools; the proxy's own find_tools / call_tool come on top.
        const resolve = async (): Promise<AsyncToolSelector> => {
          selector ??= await selectors.get(selectorName, controls.k);
          return selector;
        };
        const query = selectionQuery(request, policy);
        const ctx: SelectionContext =
          policy === 'stable'
            ? {
                turn: 1,
                latestUserMessage: query,
                conversation: query !== undefined ? [{ role: 'user', content: query }] : [],
              }
            : { turn: request.turn, latestUserMessage: query, conversation: request.conversation };
        const selection = await selectTools(resolve, ctx, request.selectable, signal);
        if (selection.fellOpen === undefined && selection.warnings.length > 0) warning = selection.warnings.join('; ');
        const plan = planTools(request, policy, selection, {
          policy,
          prefixCache,
          upstreamCaches: openaiCaches,
          minDeferredTokens,
        });
        if (typeof plan === 'string') outcome = untouched(plan, policy);
        else {
          const tail = await tailReveal(request, plan, resolve, signal);
          const forwarded = planned(request, plan, tail);
          edits = forwarded.edits([], new Set());
          outcome = { ...forwarded.outcome, ...(tail.length > 0 ? { revealed: tail.length } : {}) };
          if (plan.meta) rounds = searchRounds(request, plan, forwarded.body, () => selector, signal, tail);
        }
        // A cold corpus can hold the event loop for seconds (WASM embedding), long enough for
        // an idle keep-alive connection to the upstream to be closed by the other side. One
        // turn of the event loop lets the runtime notice before fetch reuses it.
        if (Date.now() - started > 1000) await new Promise((done) => setTimeout(done, 0));
      }
      const sent = isLargeBody(text.length)
        ? await encodeEditedInSteps(text, bytes, edits, nextTurn)
        : applyEdits(text, edits);
      outcome = {
        ...outcome,
        ms: performance.now() - arrived,
        ...(degraded !== undefined ? { degraded } : {}),
        ...(warning !== undefined ? { warning } : {}),
      };
      const url = `${upstreams[protocol]}${PATHS[protocol]}${search(c)}`;
      return await forward(c, {
        protocol,
        url,
        method: 'POST',
        body: sent,
        outcome,
        signal,
        stream: request.stream,
        ...(rounds ? { rounds } : {}),
      });
    } catch (error) {
      if (error instanceof ProxyRequestError)
        return providerError(protocol, error.status, error.message, {
          ...error.extra,
          ...(error.param ? { param: error.param } : {}),
        });
      if (error instanceof JsonDepthError) return providerError(protocol, 400, error.message); // a large body's
      if (requestSignal(c).aborted) return providerError(protocol, 400, 'the client closed the request');
      onError?.(error);
      return providerError(protocol, 500, 'the proxy failed to handle this request; see the server log');
    }
  }

  /**
   * Stable policy, long prompts: the latest user message's own selection, minus the loaded set,
   * to list at the tail. A search round would re-read the whole (long) prompt; the list costs
   * its own few hundred tokens, after the cached prefix.
   */
  async function tailReveal(
    request: ProxyRequest,
    plan: ToolPlan,
    resolve: () => Promise<AsyncToolSelector>,
    signal: AbortSignal,
  ): Promise<ToolSchema[]> {
    if (
      plan.policy !== 'stable' ||
      !plan.meta?.call ||
      request.query === undefined ||
      request.query === request.firstQuery
    )
      return [];
    if (request.protocol === 'anthropic' && request.body.cache_control != null) return []; // automatic caching would cache the list
    const conversationChars =
      request.text.length - (request.toolsSpan ? request.toolsSpan.end - request.toolsSpan.start : 0);
    // A search round re-reads the conversation: at the cached price where it is cached; at full
    // price where no breakpoint reaches the messages (Anthropic caches nothing after the last
    // one), which makes the list worth it on a prompt a tenth as long.
    const threshold = conversationCached(request) ? tailRevealTokens : tailRevealTokens * UNCACHED_ROUND_SHARE;
    if (conversationChars / 4 < threshold) return [];
    const latest = await selectTools(
      resolve,
      { turn: request.turn, latestUserMessage: request.query, conversation: request.conversation },
      request.selectable,
      signal,
    );
    if (latest.fellOpen !== undefined) return [];
    const loaded = new Set(plan.kept);
    return request.tools.flatMap((tool, index) =>
      tool.selectable && !loaded.has(index) && latest.names.has(tool.name) && tool.schema ? [tool.schema] : [],
    );
  }

  function searchRounds(
    request: ProxyRequest,
    plan: ToolPlan,
    body: (appended: readonly string[], revealed: ReadonlySet<string>) => string,
    selector: () => AsyncToolSelector | undefined,
    signal: AbortSignal,
    tail: readonly ToolSchema[] = [],
  ): Omit<SearchRounds, 'send'> {
    const meta = plan.meta as NonNullable<ToolPlan['meta']>;
    const byName = new Map(request.selectable.map((tool) => [tool.name, tool]));
    const surface = new Set(
      [...plan.kept.map((index) => request.tools[index]?.name ?? ''), ...tail.map((tool) => tool.name)].filter(
        (name) => name !== '',
      ),
    );
    return {
      codec: CODECS[request.protocol],
      meta,
      registered: new Set(request.tools.map((tool) => tool.name).filter((name) => name !== '')),
      surface,
      declareFound: meta.call === undefined,
      body,
      keepAliveMs,
      maxEventBytes: maxSseEventBytes,
      signal,
      async search(query: string, exclude: ReadonlySet<string>): Promise<ToolSchema[]> {
        const current = selector();
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

  /** One upstream call under the first-byte timeout, its body under the idle timeout. */
  function call(c: Context, forwarding: Forwarding, body: Forwarding['body'], signal: AbortSignal): Promise<Response> {
    const { protocol, url, method } = forwarding;
    const sent = upstreamHeaders(c.req.raw.headers, upstreamName(protocol), auth, apiKeys[upstreamName(protocol)]);
    // fetch would label a string body text/plain; the body is JSON whatever the client said.
    if (body !== undefined && !sent.has('content-type')) sent.set('content-type', 'application/json');
    return firstByteWithin(firstByteMs, signal, async (linked) =>
      redactedError(
        idleLimited(
          await fetchUpstream(url, {
            method,
            headers: sent,
            ...(body !== undefined ? { body } : {}),
            signal: linked,
            redirect: 'manual',
          }),
          idleMs,
        ),
        secrets,
      ),
    );
  }

  function upstreamFailure(protocol: WireProtocol, error: unknown, signal: AbortSignal): Response {
    if (signal.aborted) return providerError(protocol, 400, 'the client closed the request');
    if (error instanceof UpstreamIdleTimeout)
      return providerError(protocol, 504, `the ${upstreamName(protocol)} ${error.message.replace(/^the /, '')}`);
    if (error instanceof FirstByteTimeout)
      return providerError(
        protocol,
        504,
        `the ${upstreamName(protocol)} upstream did not begin its answer within ${Math.round(error.ms / 1000)} s`,
      );
    onError?.(new UpstreamUnreachableError(upstreamName(protocol), upstreams[protocol] ?? '', error));
    return providerError(protocol, 502, `the ${upstreamName(protocol)} upstream could not be reached`);
  }

  async function forward(c: Context, forwarding: Forwarding): Promise<Response> {
    const { protocol, body, outcome, stream } = forwarding;
    // Our own link to the upstream calls: the client leaving, or the client's stream being cancelled, ends them.
    const controller = new AbortController();
    const signal = controller.signal;
    abortWith(forwarding.signal, controller);
    const rounds = forwarding.rounds
      ? { ...forwarding.rounds, send: (next: string) => call(c, forwarding, next, signal) }
      : undefined;
    const pending = call(c, forwarding, body, signal);
    pending.catch(() => undefined);
    if (stream) {
      const early = await settledWithin(pending, keepAliveMs);
      if (early === 'waiting') return committedStream(protocol, outcome, pending, rounds, controller);
      if ('error' in early) return upstreamFailure(protocol, early.error, signal);
      return answer(protocol, early.value, outcome, rounds, signal, controller);
    }
    let upstream: Response;
    try {
      upstream = await pending;
    } catch (error) {
      return upstreamFailure(protocol, error, signal);
    }
    return answer(protocol, upstream, outcome, rounds, signal, controller);
  }

  /** The client's answer once the upstream has begun its own. */
  async function answer(
    protocol: WireProtocol,
    upstream: Response,
    outcome: Outcome | undefined,
    rounds: SearchRounds | undefined,
    signal: AbortSignal,
    controller: AbortController,
  ): Promise<Response> {
    const headers = clientHeaders(upstream.headers);
    if (outcome) reportOutcome(headers, outcome);
    const isEvents = /^\s*text\/event-stream/i.test(upstream.headers.get('content-type') ?? '');
    if (rounds && upstream.ok && isEvents) {
      return new Response(eventStream(streamRounds(rounds, upstream), controller), {
        status: upstream.status,
        statusText: upstream.statusText,
        headers,
      });
    }
    if (rounds && upstream.ok && !isEvents) {
      try {
        const result = await jsonRounds(rounds, upstream);
        if (result.kind === 'answer') {
          const final = clientHeaders(result.last.headers);
          headers.forEach((value, name) => {
            if (name.startsWith('x-loopctl-') || name === 'server-timing') final.set(name, value);
          });
          final.set('x-loopctl-search-rounds', String(result.rounds));
          final.set('content-type', 'application/json');
          return new Response(result.body, { status: 200, headers: final });
        }
        if (result.kind === 'broken')
          return providerError(
            protocol,
            502,
            `the ${upstreamName(protocol)} upstream sent an answer that is not valid JSON during a tool search round`,
          );
        upstream = result.response;
      } catch (error) {
        return upstreamFailure(protocol, error, signal);
      }
    }
    // The upstream body as is: SSE streamed through unbuffered (a failure mid-stream ends it
    // with an error event), any other answer up to 256 KiB whole.
    if (isEvents && upstream.body) {
      return new Response(relayEvents(upstream.body, protocol), {
        status: upstream.status,
        statusText: upstream.statusText,
        headers,
      });
    }
    let body: BodyInit | null;
    try {
      body = await clientBody(upstream);
    } catch (error) {
      if (signal.aborted) return providerError(protocol, 400, 'the client closed the request');
      if (error instanceof UpstreamIdleTimeout) return upstreamFailure(protocol, error, signal);
      onError?.(
        new Error(`proxy: the ${upstreamName(protocol)} upstream answer was cut off: ${errorMessage(error)}`, {
          cause: error,
        }),
      );
      return providerError(
        protocol,
        502,
        `the ${upstreamName(protocol)} upstream closed the connection before its answer was complete`,
      );
    }
    return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
  }

  /**
   * A stream whose upstream is slow to begin: the client gets its status and keep-alive comments
   * now, then the upstream's events; a failure from here on is an error event in the stream.
   */
  function committedStream(
    protocol: WireProtocol,
    outcome: Outcome | undefined,
    pending: Promise<Response>,
    rounds: SearchRounds | undefined,
    controller: AbortController,
  ): Response {
    const headers = new Headers({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    if (outcome) reportOutcome(headers, outcome);
    async function* events(): AsyncGenerator<string | Uint8Array> {
      yield KEEP_ALIVE;
      let upstream: Response;
      try {
        upstream = yield* ticksUntilWith(pending, keepAliveMs);
      } catch (error) {
        if (controller.signal.aborted && !(error instanceof FirstByteTimeout)) return;
        yield error instanceof FirstByteTimeout
          ? streamError(
              protocol,
              'timeout_error',
              `the ${upstreamName(protocol)} upstream did not begin its answer within ${Math.round(error.ms / 1000)} s`,
            )
          : streamError(protocol, 'api_error', `the ${upstreamName(protocol)} upstream could not be reached`);
        return;
      }
      if (!upstream.ok) {
        const detail = await upstream.text().catch(() => '');
        yield streamError(
          protocol,
          upstream.status === 429 ? 'rate_limit_error' : 'api_error',
          `the upstream answered ${upstream.status}: ${detail.slice(0, 500)}`,
        );
        return;
      }
      if (rounds && /^\s*text\/event-stream/i.test(upstream.headers.get('content-type') ?? '')) {
        yield* streamRounds(rounds, upstream);
        return;
      }
      if (!upstream.body) return;
      const reader = relayEvents(upstream.body, protocol).getReader();
      try {
        while (true) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    }
    return new Response(eventStream(events(), controller), { status: 200, headers });
  }

  app.post('/v1/chat/completions', (c) => handle(c, 'openai'));
  app.post('/v1/messages', (c) => handle(c, 'anthropic'));
  app.post('/v1/responses', (c) => handle(c, 'responses'));
  app.get('/v1/models', async (c) => {
    const protocol: WireProtocol =
      upstreams.anthropic && (c.req.header('anthropic-version') !== undefined || !upstreams.openai)
        ? 'anthropic'
        : 'openai';
    try {
      const refused = await gate(c, protocol);
      if (refused) return refused;
      const path = protocol === 'openai' ? '/models' : '/v1/models';
      return await forward(c, {
        protocol,
        url: `${upstreams[protocol]}${path}${search(c)}`,
        method: 'GET',
        body: undefined,
        outcome: undefined,
        signal: requestSignal(c),
        stream: false,
      });
    } catch (error) {
      onError?.(error);
      return providerError(protocol, 500, 'the proxy failed to handle this request; see the server log');
    }
  });
  return app;
}

/**
 * Who a request's budget is charged to: in token mode every holder of the proxy token is one
 * client; in pass-through mode, each provider key (by its SHA-256: the key itself is never kept).
 */
async function clientOf(request: Request, auth: ProxyAuthMode): Promise<string> {
  if (auth === 'token') return 'token';
  const credential = request.headers.get('authorization') ?? request.headers.get('x-api-key') ?? '';
  const { digestHex } = await import('../../digest.js');
  return digestHex(['loopctl/proxy-client/v1', credential]);
}

function reportOutcome(headers: Headers, outcome: Outcome): void {
  headers.set('x-loopctl-registered', String(outcome.registered));
  headers.set('x-loopctl-advertised', String(outcome.advertised));
  headers.set('x-loopctl-tokens-saved', String(outcome.tokensSaved));
  if (outcome.policy !== undefined) headers.set('x-loopctl-policy', outcome.policy);
  if (outcome.revealed !== undefined) headers.set('x-loopctl-revealed', String(outcome.revealed));
  if (outcome.fellOpen !== undefined) headers.set('x-loopctl-fell-open', headerText(outcome.fellOpen));
  if (outcome.skipped !== undefined) headers.set('x-loopctl-skipped', outcome.skipped);
  if (outcome.degraded !== undefined) headers.set('x-loopctl-degraded', headerText(outcome.degraded));
  if (outcome.warning !== undefined) headers.set('x-loopctl-warning', headerText(outcome.warning));
  if (outcome.ms !== undefined)
    headers.append('server-timing', `loopctl;dur=${outcome.ms.toFixed(2)};desc="proxy before upstream"`);
}

/**
 * Whether the upstream caches the conversation's messages: an Anthropic request caches only up
 * to its last breakpoint, so one whose breakpoints sit on the tools or the system prompt has its
 * messages read at full price on every request (a search round included). Other protocols
 * cache whole prefixes.
 */
function conversationCached(request: ProxyRequest): boolean {
  const { body } = request;
  return (
    request.protocol !== 'anthropic' || hasBreakpoints({ cache_control: body.cache_control, messages: body.messages })
  );
}

function upstreamName(protocol: WireProtocol): 'openai' | 'anthropic' {
  return protocol === 'anthropic' ? 'anthropic' : 'openai';
}

/** `ticksUntil` as a delegate that turns its ticks into keep-alive comments. */
async function* ticksUntilWith(pending: Promise<Response>, everyMs: number): AsyncGenerator<string, Response> {
  const ticks = ticksUntil(pending, everyMs);
  while (true) {
    const step = await ticks.next();
    if (step.done) return step.value;
    yield KEEP_ALIVE;
  }
}

const encoder = new TextEncoder();

/** A byte stream pulled from `source`; cancelling it (the client left) aborts the upstream calls. */
function eventStream(
  source: AsyncGenerator<string | Uint8Array>,
  controller: AbortController,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(stream) {
      try {
        const step = await source.next();
        if (step.done) stream.close();
        else stream.enqueue(typeof step.value === 'string' ? encoder.encode(step.value) : step.value);
      } catch (error) {
        if (controller.signal.aborted) stream.close();
        else stream.error(error);
      }
    },
    cancel(reason) {
      controller.abort(reason);
      void source.return(undefined).catch(() => undefined);
    },
  });
}

function search(c: Context): string {
  const url = c.req.url;
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at);
}

// Some runtimes expose no usable request signal; then nothing cancels but the body stream.
function requestSignal(c: Context): AbortSignal {
  try {
    return c.req.raw.signal ?? new AbortController().signal;
  } catch {
    return new AbortController().signal;
  }
}

/** A header-safe rendering of a reason: printable ASCII, bounded. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 200);
}
