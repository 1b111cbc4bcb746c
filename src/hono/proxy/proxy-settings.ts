/**
 * The proxy's settings and what the app shares with it (`ProxyRoutesOptions`), resolved once
 * per `proxyRoutes` into the {@link ProxyConfig} every request reads: defaults applied, bounds
 * checked, the upstreams, their keys and the secrets to redact derived, the per-protocol tool
 * caches made.
 */
import type { FetchLike } from '../../model/http.js';
import { globalFetch } from '../../model/http.js';
import { mergeOptions } from '../../options.js';
import type { ToolSchema } from '../../registry/schema.js';
import type { AsyncToolSelector } from '../../select/selector.js';
import { settingDefaults } from '../setting.js';
import { PROXY_SETTINGS } from '../settings.js';
import type { UploadBudget } from '../upload-budget.js';
import { uploadBudget } from '../upload-budget.js';
import type { ProxyLearning } from './learn/proxy-learning.js';
import { proxyLearning } from './learn/proxy-learning.js';
import type { LearnBounds } from './learn/tenant-state.js';
import type { LearnedTrafficStore } from './learn/traffic-store.js';
import { memoryTrafficStore } from './learn/traffic-store.js';
import { PROTOCOLS } from './protocols/index.js';
import type { ProxyAuthMode, TokenVerifier } from './proxy-auth.js';
import type { ProxyProtocol, UpstreamName } from './proxy-protocol.js';
import { proxyUpstreams } from './proxy-upstreams.js';
import type { PrefixCacheMode, ToolPolicy } from './tool-policy.js';
import { MIN_DEFERRED_TOKENS } from './tool-policy.js';
import type { ToolSetBudget } from './tool-set-budget.js';
import { toolSetBudget } from './tool-set-budget.js';
import type { ToolSetCache } from './tool-set-cache.js';
import { toolSetCache } from './tool-set-cache.js';

/** The proxy's own settings (env: `PROXY_*`). Every field has a default. */
export interface ProxySettings {
  /** Selector when a request names none (`PROXY_SELECTOR`). Default `hybrid`, or `keyword` without an embedder. */
  selector?: string;
  /**
   * The client's tools kept per request when a request sets no `x-loopctl-k` (`PROXY_K`); the
   * proxy's own `find_tools` / `call_tool` come on top. Default: its declaration (`settings.ts`).
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
  /** Largest request body forwarded (`PROXY_MAX_BODY_BYTES`). Default: its declaration (`settings.ts`). */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a request body (`PROXY_MAX_JSON_DEPTH`), 1 to
   * 1024; deeper is a 400. Default: its declaration (`settings.ts`).
   */
  maxJsonDepth?: number;
  /** Tool policy when a request names none (`PROXY_POLICY`): see `tool-policy.ts`. Default: its declaration (`settings.ts`). */
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
   * a 504 (an error event once a stream's keep-alive has begun). 0: no limit. Default: its declaration (`settings.ts`).
   */
  firstByteTimeoutMs?: number;
  /** Milliseconds between SSE keep-alive comments while a stream waits (`PROXY_KEEPALIVE_MS`). Default: its declaration (`settings.ts`). */
  keepAliveMs?: number;
  /**
   * Most tools one request may list (`PROXY_MAX_TOOLS`); more is a 400 in the provider's shape.
   * By default the most any vendor's tool search takes (`settings.ts`).
   */
  maxTools?: number;
  /**
   * New tool lists one client may bring to the dense selectors per hour
   * (`PROXY_NEW_TOOL_SETS_PER_CLIENT`): each costs embedding work and a vector-cache write. Past
   * it, that client's new lists are ranked with `bm25` (`x-loopctl-degraded` says why). Default: its declaration (`settings.ts`).
   */
  newToolSetsPerClient?: number;
  /** The same, all clients together (`PROXY_NEW_TOOL_SETS_TOTAL`). Default: its declaration (`settings.ts`). */
  newToolSetsTotal?: number;
  /**
   * Where those counts live. Default this process's memory (one isolate on Workers);
   * `createWorker` uses the `TOOL_SET_BUDGET` Durable Object when bound, shared by the fleet.
   */
  toolSetBudget?: ToolSetBudget;
  /**
   * Milliseconds the upstream may go silent once its answer has begun (`PROXY_IDLE_TIMEOUT_MS`):
   * a read of its body that waits longer ends the answer, a 504 or an error event in the
   * provider's shape. By default the first-byte timeout's (`settings.ts`): a reasoning model may
   * think as long after its first chunk as before it. 0: no limit.
   */
  idleTimeoutMs?: number;
  /**
   * The most bytes one upstream SSE event may reach when the proxy reads the stream (its search
   * rounds) (`PROXY_MAX_SSE_EVENT_BYTES`); past it the stream ends with an error event instead
   * of buffering on. Default: its declaration (`settings.ts`).
   */
  maxSseEventBytes?: number;
  /**
   * Learn from the traffic forwarded, per tenant (`PROXY_LEARN`, default `off`: the proxy then
   * behaves exactly as without it). `on` keeps it where the entry does (`createApp`: this
   * process's memory; Node and Deno: files under `PROXY_LEARN_DIR`; Workers: the
   * `LEARNED_TRAFFIC` Durable Object); a {@link LearnedTrafficStore} keeps it there.
   */
  learn?: 'on' | 'off' | LearnedTrafficStore;
  /** The key of the tenant digest (`PROXY_LEARN_SECRET`). */
  learnSecret?: string;
  /** Learned examples kept per tenant per tool list (`PROXY_LEARN_MAX_EXAMPLES`). */
  learnMaxExamples?: number;
  /** Bytes of learned examples kept per tenant (`PROXY_LEARN_MAX_BYTES`). */
  learnMaxBytes?: number;
  /** Requests per tenant per minute whose examples are stored (`PROXY_LEARN_WRITES_PER_MINUTE`). */
  learnWritesPerMinute?: number;
  /** Node and Deno: the folder `learn: 'on'` keeps files in (`PROXY_LEARN_DIR`). */
  learnDir?: string;
  /**
   * The wire protocols served, one route each. Default {@link PROTOCOLS} (Chat Completions,
   * Messages, Responses); a protocol of your own is one more object here.
   */
  protocols?: readonly ProxyProtocol[];
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

/** Options for `proxyRoutes`: the settings plus what the app shares with the proxy. */
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

// The one setting without a variable: how much of a long conversation's end reveals tools.
const DEFAULT_TAIL_REVEAL_TOKENS = 16_384;

// The declared defaults (settings.ts): each written once, there.
const DECLARED = settingDefaults(PROXY_SETTINGS);

// The settings checked against their declared bound, in code as in the environment.
const BOUNDED = [
  'maxTools',
  'k',
  'maxJsonDepth',
  'maxBodyBytes',
  'firstByteTimeoutMs',
  'keepAliveMs',
  'idleTimeoutMs',
  'maxSseEventBytes',
  'learnMaxExamples',
  'learnMaxBytes',
  'learnWritesPerMinute',
] as const;

/** The settings of one `proxyRoutes`, resolved: what every request of it reads. */
export interface ProxyConfig {
  readonly protocols: readonly ProxyProtocol[];
  readonly selectors: ProxySelectorTable;
  readonly hasEmbedder: boolean | undefined;
  readonly defaultSelector: string;
  readonly k: number;
  readonly auth: ProxyAuthMode;
  readonly token: TokenVerifier | undefined;
  readonly onError: ((error: unknown) => void) | undefined;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  readonly maxTools: number;
  readonly fetch: FetchLike;
  readonly policy: ToolPolicy;
  readonly prefixCache: PrefixCacheMode;
  readonly minDeferredTokens: number;
  readonly tailRevealTokens: number;
  readonly firstByteMs: number;
  readonly keepAliveMs: number;
  readonly idleMs: number;
  readonly maxSseEventBytes: number;
  /** Each upstream's base URL, without a trailing slash; undefined when none is configured. */
  readonly upstreams: Readonly<Record<UpstreamName, string | undefined>>;
  /** The key each upstream gets in token mode: the model's key only for its own protocol. */
  readonly apiKeys: Readonly<Record<UpstreamName, string | undefined>>;
  /** Every configured key: scrubbed from upstream errors, which may quote the key they were sent. */
  readonly secrets: readonly string[];
  /** Parsed tool lists per distinct tools text, one cache per protocol (the dialects differ). */
  readonly toolSets: ReadonlyMap<ProxyProtocol, ToolSetCache>;
  /** New tool lists each client may bring to the dense selectors. */
  readonly newLists: ToolSetBudget;
  /** Tool lists (one object per tools text, see tool-set-cache.ts) that budget has paid for. */
  readonly admitted: WeakSet<readonly ToolSchema[]>;
  readonly uploadBudget: UploadBudget;
  /** Learning from traffic; undefined when off. */
  readonly learning: ProxyLearning | undefined;
}

/**
 * Resolve `options` once: defaults, bounds (a `RangeError` naming the setting), derived state.
 *
 * @example
 * const config = proxyConfig({ selectors: namedSelectors(), k: 8 })
 * config.upstreams.openai // 'http://127.0.0.1:11434/v1'
 */
export function proxyConfig(options: ProxyRoutesOptions): ProxyConfig {
  const defaults = {
    auth: DECLARED.auth,
    k: DECLARED.k,
    maxBodyBytes: DECLARED.maxBodyBytes,
    maxJsonDepth: DECLARED.maxJsonDepth,
    fetch: globalFetch,
    policy: DECLARED.policy,
    prefixCache: DECLARED.prefixCache,
    minDeferredTokens: MIN_DEFERRED_TOKENS,
    firstByteTimeoutMs: DECLARED.firstByteTimeoutMs,
    keepAliveMs: DECLARED.keepAliveMs,
    idleTimeoutMs: DECLARED.idleTimeoutMs,
    maxSseEventBytes: DECLARED.maxSseEventBytes,
    tailRevealTokens: DEFAULT_TAIL_REVEAL_TOKENS,
    maxTools: DECLARED.maxTools,
    learnMaxExamples: DECLARED.learnMaxExamples,
    learnMaxBytes: DECLARED.learnMaxBytes,
    learnWritesPerMinute: DECLARED.learnWritesPerMinute,
  };
  const merged = mergeOptions(defaults, options);
  const { selectors, hasEmbedder, model, auth } = merged;
  const defaultSelector = options.selector ?? (hasEmbedder ? 'hybrid' : 'keyword');
  checkSettings(merged, defaultSelector);
  const protocols = options.protocols ?? PROTOCOLS;
  return {
    protocols,
    selectors,
    hasEmbedder,
    defaultSelector,
    k: merged.k,
    auth,
    token: merged.token,
    onError: merged.onError,
    maxBodyBytes: merged.maxBodyBytes,
    maxJsonDepth: merged.maxJsonDepth,
    maxTools: merged.maxTools,
    fetch: merged.fetch,
    policy: merged.policy,
    prefixCache: merged.prefixCache,
    minDeferredTokens: merged.minDeferredTokens,
    tailRevealTokens: merged.tailRevealTokens,
    firstByteMs: merged.firstByteTimeoutMs,
    keepAliveMs: merged.keepAliveMs,
    idleMs: merged.idleTimeoutMs,
    maxSseEventBytes: merged.maxSseEventBytes,
    upstreams: proxyUpstreams(options, model),
    apiKeys: upstreamKeys(options, auth),
    secrets: [...new Set([options.openaiApiKey, options.anthropicApiKey, model?.apiKey])].filter((key): key is string =>
      Boolean(key),
    ),
    toolSets: new Map(protocols.map((protocol) => [protocol, toolSetCache()])),
    newLists:
      options.toolSetBudget ??
      toolSetBudget({ perClient: options.newToolSetsPerClient, total: options.newToolSetsTotal }),
    admitted: new WeakSet(),
    uploadBudget: options.uploadBudget ?? uploadBudget(),
    learning: learningOf(merged),
  };
}

/**
 * The bounds of learning the settings give (each the declared default when unset).
 *
 * @example
 * learnBounds({ learnMaxExamples: 100 }).maxExamples // 100
 */
export function learnBounds(settings: ProxySettings): LearnBounds {
  return {
    maxExamples: settings.learnMaxExamples ?? DECLARED.learnMaxExamples,
    maxBytes: settings.learnMaxBytes ?? DECLARED.learnMaxBytes,
    writesPerMinute: settings.learnWritesPerMinute ?? DECLARED.learnWritesPerMinute,
  };
}

// Off unless asked: `on` alone is this process's memory (an entry passes a lasting store).
function learningOf(options: ProxyRoutesOptions): ProxyLearning | undefined {
  const { learn } = options;
  if (learn === undefined || learn === 'off') return undefined;
  const store = learn === 'on' ? memoryTrafficStore(learnBounds(options)) : learn;
  return proxyLearning(store, {
    ...(options.learnSecret !== undefined ? { secret: options.learnSecret } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
}

type Merged = ProxyRoutesOptions &
  Required<
    Pick<
      ProxySettings,
      | 'k'
      | 'maxBodyBytes'
      | 'maxJsonDepth'
      | 'firstByteTimeoutMs'
      | 'keepAliveMs'
      | 'idleTimeoutMs'
      | 'maxSseEventBytes'
      | 'maxTools'
      | 'learnMaxExamples'
      | 'learnMaxBytes'
      | 'learnWritesPerMinute'
    >
  >;

// The bounds the routes hold their settings to: the declared ones (settings.ts), the same in
// code as in the environment; each failure names the setting.
function checkSettings(merged: Merged, defaultSelector: string): void {
  const { selectors, hasEmbedder } = merged;
  for (const key of BOUNDED) {
    const { accepts, says } = PROXY_SETTINGS[key];
    if (!accepts?.(merged[key])) throw new RangeError(`proxy ${key} must be ${says}, got ${merged[key]}`);
  }
  if (!selectors.names.includes(defaultSelector)) {
    throw new RangeError(`proxy selector "${defaultSelector}" is not one of ${selectors.names.join(', ')}`);
  }
  if (!hasEmbedder && selectors.isDense(defaultSelector)) {
    throw new RangeError(`proxy selector "${defaultSelector}" needs an embedder, and none is configured`);
  }
}

// One key per upstream: the model's key only for its own protocol, none in pass-through mode.
function upstreamKeys(options: ProxyRoutesOptions, auth: ProxyAuthMode): Record<UpstreamName, string | undefined> {
  if (auth !== 'token') return { openai: undefined, anthropic: undefined };
  const { model } = options;
  const modelKey = (provider: UpstreamName): string | undefined =>
    (model?.provider ?? 'openai') === provider ? model?.apiKey : undefined;
  return {
    openai: options.openaiApiKey ?? modelKey('openai'),
    anthropic: options.anthropicApiKey ?? modelKey('anthropic'),
  };
}
