/**
 * The names of the configuration variables, as lists a launcher can pass on (`npm start` hands
 * each one set in the environment to `wrangler dev --var`). Each list is typed as a record of
 * its interface's keys, so a variable added to {@link ProxyVars}, {@link LoopctlVars} or
 * {@link WorkerEnv} without its name here fails the type-check instead of being silently
 * dropped by a launcher. Type-only imports: this file loads on its own, without the app.
 */
import type { LoopctlVars } from './env-options.js';
import type { ProxyVars } from './proxy/proxy-env.js';
import type { WorkerEnv } from './workers.js';

const PROXY_VARS: Record<keyof ProxyVars, true> = {
  PROXY_SELECTOR: true,
  PROXY_K: true,
  PROXY_AUTH: true,
  PROXY_OPENAI_BASE_URL: true,
  PROXY_ANTHROPIC_BASE_URL: true,
  PROXY_OPENAI_API_KEY: true,
  PROXY_ANTHROPIC_API_KEY: true,
  PROXY_MAX_BODY_BYTES: true,
  PROXY_MAX_JSON_DEPTH: true,
  PROXY_POLICY: true,
  PROXY_PREFIX_CACHE: true,
  PROXY_FIRST_BYTE_TIMEOUT_MS: true,
  PROXY_KEEPALIVE_MS: true,
  PROXY_MAX_TOOLS: true,
  PROXY_NEW_TOOL_SETS_PER_CLIENT: true,
  PROXY_NEW_TOOL_SETS_TOTAL: true,
  PROXY_IDLE_TIMEOUT_MS: true,
  PROXY_MAX_SSE_EVENT_BYTES: true,
};

const APP_VARS: Record<Exclude<keyof LoopctlVars, keyof ProxyVars>, true> = {
  LOOPCTL_TOKEN: true,
  MODEL_PROVIDER: true,
  MODEL_BASE_URL: true,
  MODEL_NAME: true,
  MODEL_API_KEY: true,
  CORS_ORIGINS: true,
  LOOPCTL_MAX_NEW_EMBEDS: true,
  ALLOWED_HOSTS: true,
  LOOPCTL_UPLOAD_BUFFER_BYTES: true,
};

// The bindings that are not text variables (KV, Workers AI, assets, the Durable Object) are
// configured in wrangler.toml.
type Bindings = 'VECTORS' | 'AI' | 'ASSETS' | 'TOOL_SET_BUDGET';
const WORKER_ONLY_VARS: Record<Exclude<keyof WorkerEnv, keyof LoopctlVars | Bindings>, true> = {
  EMBEDDING_MODEL: true,
  VECTORS_TTL_SECONDS: true,
};

/**
 * Every variable {@link LoopctlVars} declares (the app's and the proxy's): what every entry reads.
 *
 * @example
 * const set = LOOPCTL_VAR_NAMES.filter((name) => process.env[name] !== undefined)
 */
export const LOOPCTL_VAR_NAMES: readonly (keyof LoopctlVars)[] = Object.freeze([
  ...(Object.keys(APP_VARS) as (keyof LoopctlVars)[]),
  ...(Object.keys(PROXY_VARS) as (keyof ProxyVars)[]),
]);

/**
 * Every text variable the Workers entry reads: {@link LOOPCTL_VAR_NAMES}, `EMBEDDING_MODEL` and
 * `VECTORS_TTL_SECONDS`.
 *
 * @example
 * const args = WORKER_VAR_NAMES.filter((name) => env[name]).flatMap((name) => ['--var', `${name}:${env[name]}`])
 */
export const WORKER_VAR_NAMES: readonly string[] = Object.freeze([
  ...LOOPCTL_VAR_NAMES,
  ...Object.keys(WORKER_ONLY_VARS),
]);
