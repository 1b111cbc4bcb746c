/**
 * Every setting of the HTTP API, the proxy and their entries, declared once (see `setting.ts`):
 * the variable, the flag, the parser and bound, the default and the doc line. The variable
 * types (`LoopctlVars`, `ProxyVars`, `WorkerEnv`'s text variables), the reader every entry uses
 * (`optionsFromVars`), the launchers' lists of names (`config-var-names.ts`) and the
 * Configuration tables of docs/worker.md and docs/proxy.md (`scripts/settings-doc.mjs`) are
 * derived from these tables. Light imports only: `npm start` bundles this file on its own.
 */
import { DEFAULT_WORKERS_AI_MODEL } from '../adapters/workers-ai.js';
import { DEFAULT_K } from '../rank/top-k.js';
import { LIMITS } from './limits.js';
import { DEFAULT_MAX_JSON_DEPTH, MAX_JSON_DEPTH_LIMIT } from './proxy/json-nesting.js';
import { DEFAULT_LEARN_BOUNDS } from './proxy/learn/tenant-state.js';
import { MAX_SSE_EVENT_BYTES } from './proxy/sse-events.js';
import { TOOL_POLICIES } from './proxy/tool-policy.js';
import { choice, httpUrl, integer, list, milliseconds, setting, text } from './setting.js';
import { DEFAULT_UPLOAD_BUFFER_BYTES } from './upload-budget.js';

/** The model each provider talks to by default (`MODEL_NAME`, `MODEL_BASE_URL` unset). */
export const MODEL_DEFAULTS = {
  openai: { model: 'qwen3:4b', baseURL: 'http://127.0.0.1:11434/v1' },
  anthropic: { model: 'claude-haiku-4-5' },
} as const;

/**
 * The model `/v1/runs` talks to (`ModelOptions`): `optionsFromVars` reads them into `model`.
 *
 * @example
 * readSettings(MODEL_SETTINGS, { MODEL_PROVIDER: 'anthropic' }) // { provider: 'anthropic' }
 */
export const MODEL_SETTINGS = {
  provider: setting({
    variable: 'MODEL_PROVIDER',
    ...choice(['openai', 'anthropic'], undefined, 40),
    default: 'openai',
    doc: '`openai` (Chat Completions: OpenAI, Ollama, vLLM, llama.cpp) or `anthropic` (Messages)',
    docs: ['worker'],
  }),
  baseURL: setting({
    variable: 'MODEL_BASE_URL',
    ...httpUrl(),
    defaultDoc: `\`${MODEL_DEFAULTS.openai.baseURL}\` (a local Ollama); Anthropic's API for \`anthropic\``,
    doc: "The model's server. A deployed Worker cannot reach your laptop.",
    docs: ['worker'],
  }),
  model: setting({
    variable: 'MODEL_NAME',
    ...text(),
    defaultDoc: `\`${MODEL_DEFAULTS.openai.model}\` / \`${MODEL_DEFAULTS.anthropic.model}\``,
    doc: 'The model `/v1/runs` asks for',
    docs: ['worker'],
  }),
  apiKey: setting({
    variable: 'MODEL_API_KEY',
    ...text(),
    secret: true,
    doc: "`/v1/runs`' model key (a secret); the proxy sends it only to the upstream of `MODEL_PROVIDER`'s protocol",
    docs: ['worker', 'proxy'],
  }),
} as const;

/**
 * The app's own settings (`AppOptions` keys): `optionsFromVars` reads them.
 *
 * @example
 * readSettings(APP_SETTINGS, { CORS_ORIGINS: 'https://a.example' }) // { corsOrigins: ['https://a.example'] }
 */
export const APP_SETTINGS = {
  token: setting({
    variable: 'LOOPCTL_TOKEN',
    ...text(),
    secret: true,
    defaultDoc: 'none: `/v1/*` and the proxy answer 503 (closed)',
    doc: 'The bearer token of `/v1/*`, and the proxy token in token mode, in RFC 6750 characters (`A–Z a–z 0–9 - . _ ~ + /`, trailing `=`); a secret: `wrangler secret put LOOPCTL_TOKEN`',
    docs: ['worker', 'proxy'],
  }),
  corsOrigins: setting({
    variable: 'CORS_ORIGINS',
    ...list(),
    defaultDoc: 'none',
    doc: 'Origins allowed by CORS, or `*`; e.g. `https://app.example,https://admin.example`',
    docs: ['worker'],
  }),
  allowedHosts: setting({
    variable: 'ALLOWED_HOSTS',
    ...list({
      lower: true,
      item: /^(?:\*|\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)$/,
      says: 'list host names without a port (IPv6 in brackets), or *',
      bound: 'host names without a port, or `*`',
    }),
    defaultDoc: 'any; loopback names only on a loopback bind (Node, Deno)',
    doc: 'The `Host` names the server answers to (any port); others get a 403',
    docs: ['worker', 'proxy'],
  }),
  maxNewEmbeds: setting({
    variable: 'LOOPCTL_MAX_NEW_EMBEDS',
    ...integer({ min: 1, digits: 7 }),
    default: 512,
    doc: 'Tool texts the dense selectors embed for one request; a bigger new list is embedded over several',
    docs: ['worker', 'proxy'],
  }),
  uploadBufferBytes: setting({
    variable: 'LOOPCTL_UPLOAD_BUFFER_BYTES',
    ...integer({ min: 65_536, digits: 12 }),
    default: DEFAULT_UPLOAD_BUFFER_BYTES,
    doc: "Bytes all unfinished request bodies (the API's and the proxy's) may hold at once, per process or isolate; past it a 503 with `Retry-After: 1`. Keep it at least `PROXY_MAX_BODY_BYTES`",
    docs: ['worker', 'proxy'],
  }),
  mcpServers: setting({
    variable: 'LOOPCTL_MCP_SERVERS',
    ...text(),
    defaultDoc: 'none: `/mcp` answers 404',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: `${VAR}` is the configuration's own syntax, written out
    doc: "The MCP gateway at `/mcp` (behind `LOOPCTL_TOKEN`): the `mcpServers` JSON of Claude Desktop, Cursor or VS Code, or `loopctl/mcp`'s array; `${VAR}` in URLs and headers is read from the other variables and secrets. Workers mount only `url` servers.",
    docs: ['worker'],
  }),
} as const;

/** Milliseconds the upstream may wait before or within its answer: five minutes. */
const UPSTREAM_WAIT_MS = 300_000;

/**
 * The proxy's settings (`ProxySettings` keys): `proxySettingsFromVars` reads them.
 *
 * @example
 * readSettings(PROXY_SETTINGS, { PROXY_K: '6' }) // { k: 6 }
 */
export const PROXY_SETTINGS = {
  selector: setting({
    variable: 'PROXY_SELECTOR',
    ...text(),
    defaultDoc: '`hybrid` with an embedder, else `keyword`',
    doc: 'The selector when a request names none; checked against the selector table at start-up',
    docs: ['proxy'],
  }),
  k: setting({
    variable: 'PROXY_K',
    ...integer({ min: LIMITS.minK, max: LIMITS.maxK, digits: 3, echo: true }),
    default: DEFAULT_K,
    doc: "The client's tools kept per request without `x-loopctl-k`; the proxy's own `find_tools` / `call_tool` come on top",
    docs: ['proxy'],
  }),
  auth: setting({
    variable: 'PROXY_AUTH',
    ...choice(['token', 'passthrough']),
    default: 'token',
    doc: 'Token mode checks `LOOPCTL_TOKEN`; pass-through sends each client its own key upstream',
    docs: ['proxy'],
  }),
  openaiBaseURL: setting({
    variable: 'PROXY_OPENAI_BASE_URL',
    ...httpUrl(),
    flag: 'openai-base-url',
    defaultDoc: `\`MODEL_BASE_URL\` when \`MODEL_PROVIDER\` is \`openai\` (default \`${MODEL_DEFAULTS.openai.baseURL}\`)`,
    doc: 'The upstream of Chat Completions and Responses, with `/v1`, e.g. `https://api.openai.com/v1`',
    docs: ['proxy'],
  }),
  anthropicBaseURL: setting({
    variable: 'PROXY_ANTHROPIC_BASE_URL',
    ...httpUrl(),
    flag: 'anthropic-base-url',
    defaultDoc: '`MODEL_BASE_URL` when `MODEL_PROVIDER` is `anthropic` (default `https://api.anthropic.com`)',
    doc: 'The upstream of Messages: the origin (a trailing `/v1` is accepted)',
    docs: ['proxy'],
  }),
  openaiApiKey: setting({
    variable: 'PROXY_OPENAI_API_KEY',
    ...text(),
    secret: true,
    defaultDoc: '`MODEL_API_KEY` when `MODEL_PROVIDER` is `openai`',
    doc: "The OpenAI upstream's key in token mode (a secret); never the key of an Anthropic model",
    docs: ['worker', 'proxy'],
  }),
  anthropicApiKey: setting({
    variable: 'PROXY_ANTHROPIC_API_KEY',
    ...text(),
    secret: true,
    defaultDoc: '`MODEL_API_KEY` when `MODEL_PROVIDER` is `anthropic`',
    doc: "The Anthropic upstream's key in token mode (a secret); never the key of an OpenAI-compatible model",
    docs: ['worker', 'proxy'],
  }),
  policy: setting({
    variable: 'PROXY_POLICY',
    ...choice(TOOL_POLICIES),
    default: 'auto',
    doc: 'The tool policy when a request names none; see [the bill](proxy.md#what-the-proxy-does-to-the-bill)',
    docs: ['proxy'],
  }),
  prefixCache: setting({
    variable: 'PROXY_PREFIX_CACHE',
    ...choice(['auto', 'on', 'off'], 'auto, on or off'),
    default: 'auto',
    doc: 'Whether the upstream caches prompt prefixes; `auto`: by Anthropic breakpoints, `api.openai.com` or `prompt_cache_key`',
    docs: ['proxy'],
  }),
  firstByteTimeoutMs: setting({
    variable: 'PROXY_FIRST_BYTE_TIMEOUT_MS',
    ...milliseconds({ min: 0 }),
    default: UPSTREAM_WAIT_MS,
    doc: 'How long the upstream may take to begin its answer (then a 504); `0`: no limit',
    docs: ['proxy'],
  }),
  keepAliveMs: setting({
    variable: 'PROXY_KEEPALIVE_MS',
    ...milliseconds({ min: 100 }),
    default: 10_000,
    doc: "Silence before a stream's first keep-alive comment, and between comments",
    docs: ['proxy'],
  }),
  idleTimeoutMs: setting({
    variable: 'PROXY_IDLE_TIMEOUT_MS',
    ...milliseconds({ min: 0 }),
    default: UPSTREAM_WAIT_MS,
    doc: 'How long the upstream may go silent once its answer began; `0`: no limit',
    docs: ['proxy'],
  }),
  maxBodyBytes: setting({
    variable: 'PROXY_MAX_BODY_BYTES',
    ...integer({ min: 1024, digits: 10 }),
    default: 8 * 1024 * 1024,
    doc: 'The largest request body forwarded (conversations with images are large); past it a 413',
    docs: ['proxy'],
  }),
  maxTools: setting({
    variable: 'PROXY_MAX_TOOLS',
    ...integer({ min: 1, digits: 9 }),
    default: 10_000,
    doc: 'Most tools one request may list (the most any vendor’s tool search takes); more is a 400',
    docs: ['proxy'],
  }),
  newToolSetsPerClient: setting({
    variable: 'PROXY_NEW_TOOL_SETS_PER_CLIENT',
    ...integer({ min: 1, digits: 9 }),
    default: 60,
    doc: 'New tool lists one client may have embedded per hour; past it its new lists are ranked with `bm25`',
    docs: ['proxy'],
  }),
  newToolSetsTotal: setting({
    variable: 'PROXY_NEW_TOOL_SETS_TOTAL',
    ...integer({ min: 1, digits: 9 }),
    default: 600,
    doc: 'The same, all clients together',
    docs: ['proxy'],
  }),
  maxJsonDepth: setting({
    variable: 'PROXY_MAX_JSON_DEPTH',
    ...integer({ min: 1, max: MAX_JSON_DEPTH_LIMIT, digits: 4 }),
    default: DEFAULT_MAX_JSON_DEPTH,
    doc: "Deepest nesting of a body's arrays and objects; deeper is a 400",
    docs: ['proxy'],
  }),
  learn: setting({
    variable: 'PROXY_LEARN',
    ...choice(['on', 'off']),
    default: 'off',
    doc: "Learn from the traffic forwarded, per tenant: each prompt and the tools the model called in reply shape that tenant's later selections (docs/proxy.md, Learning from traffic)",
    docs: ['proxy'],
  }),
  learnSecret: setting({
    variable: 'PROXY_LEARN_SECRET',
    ...text(),
    secret: true,
    doc: 'The key of the tenant digest (a secret): a stored tenant id cannot then be checked against a guessed key',
    docs: ['proxy'],
  }),
  learnMaxExamples: setting({
    variable: 'PROXY_LEARN_MAX_EXAMPLES',
    ...integer({ min: 1, max: 100_000, digits: 6 }),
    default: DEFAULT_LEARN_BOUNDS.maxExamples,
    doc: 'Learned examples kept per tenant per tool list; the oldest go',
    docs: ['proxy'],
  }),
  learnMaxBytes: setting({
    variable: 'PROXY_LEARN_MAX_BYTES',
    ...integer({ min: 1024, max: 100 * 1024 * 1024, digits: 9 }),
    default: DEFAULT_LEARN_BOUNDS.maxBytes,
    doc: 'Bytes of learned examples kept per tenant; the oldest go',
    docs: ['proxy'],
  }),
  learnWritesPerMinute: setting({
    variable: 'PROXY_LEARN_WRITES_PER_MINUTE',
    ...integer({ min: 1, max: 100_000, digits: 6 }),
    default: DEFAULT_LEARN_BOUNDS.writesPerMinute,
    doc: 'Requests per tenant per minute whose examples are stored; the rest teach nothing',
    docs: ['proxy'],
  }),
  learnDir: setting({
    variable: 'PROXY_LEARN_DIR',
    ...text(),
    default: '.loopctl/learned',
    doc: 'Node and Deno: the folder of learned traffic, a file per tenant (Deno needs `--allow-read --allow-write` on it; Workers: the `LEARNED_TRAFFIC` Durable Object)',
    docs: ['proxy'],
  }),
  maxSseEventBytes: setting({
    variable: 'PROXY_MAX_SSE_EVENT_BYTES',
    ...integer({ min: 1024, digits: 10 }),
    default: MAX_SSE_EVENT_BYTES,
    doc: 'The most one upstream event may hold when the proxy reads a stream (search rounds)',
    docs: ['proxy'],
  }),
} as const;

/**
 * The Workers entry's own text variables (`createWorker`).
 *
 * @example
 * readSettings(WORKER_SETTINGS, env).vectorsTtlSeconds ?? WORKER_SETTINGS.vectorsTtlSeconds.default
 */
export const WORKER_SETTINGS = {
  embeddingModel: setting({
    variable: 'EMBEDDING_MODEL',
    ...text(),
    default: DEFAULT_WORKERS_AI_MODEL,
    doc: 'The Workers AI embedding model (Workers only, with the `AI` binding)',
    docs: ['worker'],
  }),
  vectorsTtlSeconds: setting({
    variable: 'VECTORS_TTL_SECONDS',
    // KV refuses an expirationTtl under 60 seconds.
    ...integer({
      min: 60,
      zero: 'never expire',
      digits: 10,
      says: '0 (never expire) or a whole number of seconds of at least 60',
    }),
    default: 604_800,
    doc: 'Workers: how long a corpus entry written to `VECTORS` lives (7 days by default)',
    docs: ['worker'],
  }),
} as const;

/**
 * The Node and Deno entries' own variables (`startNodeServer`, `serveDeno`, `loopctl serve`):
 * where to listen and what to load. A Worker has none of them.
 *
 * @example
 * readSettings(ENTRY_SETTINGS, process.env).port ?? ENTRY_SETTINGS.port.default
 */
export const ENTRY_SETTINGS = {
  port: setting({
    variable: 'PORT',
    ...integer({ min: 0, max: 65_535, digits: 5 }),
    flag: 'port',
    default: 8787,
    doc: 'Node (`loopctl serve`, `startNodeServer`) and Deno: the port (`0` picks a free one)',
    docs: ['worker', 'proxy'],
  }),
  host: setting({
    variable: 'HOST',
    ...text(),
    flag: 'host',
    default: '127.0.0.1',
    doc: 'Node and Deno: the address to listen on (loopback only by default)',
    docs: ['worker', 'proxy'],
  }),
  modelPath: setting({
    variable: 'LOOPCTL_MODEL_PATH',
    ...text(),
    flag: 'model-path',
    defaultDoc: '`./models/use-lite` when it holds a model',
    doc: 'Node and Deno: the offline USE-lite model folder, for `embedding` and `hybrid`',
    docs: ['worker', 'proxy'],
  }),
} as const;
