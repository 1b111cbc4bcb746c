/**
 * The proxy's configuration variables, read into {@link ProxySettings}. Every entry (Workers,
 * Deno, Node) reads the same names.
 */
import { ConfigError, httpUrlVar, varText } from '../config-vars.js';
import { LIMITS } from '../limits.js';
import { MAX_JSON_DEPTH_LIMIT } from './json-nesting.js';
import type { ProxySettings } from './proxy-routes.js';
import type { PrefixCacheMode, ToolPolicy } from './tool-policy.js';
import { TOOL_POLICIES } from './tool-policy.js';

/** The variables the proxy reads. In Workers they are `[vars]`; elsewhere, the environment. */
export interface ProxyVars {
  /** Default selector (`hybrid`, or `keyword` without an embedder). */
  PROXY_SELECTOR?: string;
  /** Default tools kept per request, 1..`LIMITS.maxK` (default 8). */
  PROXY_K?: string;
  /** `token` (default) or `passthrough`. */
  PROXY_AUTH?: string;
  /** OpenAI-compatible upstream including `/v1`; default `MODEL_BASE_URL` when `MODEL_PROVIDER` is `openai`. */
  PROXY_OPENAI_BASE_URL?: string;
  /** Anthropic upstream origin; default `MODEL_BASE_URL` (or Anthropic's API) when `MODEL_PROVIDER` is `anthropic`. */
  PROXY_ANTHROPIC_BASE_URL?: string;
  /** Key for the OpenAI-compatible upstream in token mode (a secret); default `MODEL_API_KEY` when `MODEL_PROVIDER` is `openai`. */
  PROXY_OPENAI_API_KEY?: string;
  /** Key for the Anthropic upstream in token mode (a secret); default `MODEL_API_KEY` when `MODEL_PROVIDER` is `anthropic`. */
  PROXY_ANTHROPIC_API_KEY?: string;
  /** Largest request body, in bytes (default 8 MiB). */
  PROXY_MAX_BODY_BYTES?: string;
  /** Deepest nesting of arrays and objects in a request body, 1 to 1024 (default 128). */
  PROXY_MAX_JSON_DEPTH?: string;
  /** `auto` (default), `stable`, `per-message` or `narrow`: see docs/proxy.md, "Tool policies". */
  PROXY_POLICY?: string;
  /** Whether the upstream caches prompt prefixes: `auto` (default), `on` or `off`. */
  PROXY_PREFIX_CACHE?: string;
  /** Milliseconds the upstream may take to begin its answer (default 300000; 0: no limit). */
  PROXY_FIRST_BYTE_TIMEOUT_MS?: string;
  /** Milliseconds between SSE keep-alive comments while a stream waits (default 10000). */
  PROXY_KEEPALIVE_MS?: string;
  /** Most tools one request may list (default 10000). */
  PROXY_MAX_TOOLS?: string;
  /** New tool lists one client may have embedded per hour (default 60). */
  PROXY_NEW_TOOL_SETS_PER_CLIENT?: string;
  /** New tool lists all clients together may have embedded per hour (default 600). */
  PROXY_NEW_TOOL_SETS_TOTAL?: string;
  /** Milliseconds the upstream may go silent once its answer has begun (default 300000; 0: no limit). */
  PROXY_IDLE_TIMEOUT_MS?: string;
  /** The most bytes one upstream SSE event may reach when the proxy reads a stream (default 16 MiB). */
  PROXY_MAX_SSE_EVENT_BYTES?: string;
}

/**
 * Read {@link ProxyVars}. Throws {@link ConfigError} on a bad value (the selector name is
 * checked against the selector table when the routes are built).
 *
 * @example
 * proxySettingsFromVars({ PROXY_K: '6', PROXY_AUTH: 'passthrough' }) // { k: 6, auth: 'passthrough' }
 */
export function proxySettingsFromVars(vars: ProxyVars): ProxySettings {
  const value = varText;
  const settings: ProxySettings = {};
  const selector = value(vars.PROXY_SELECTOR);
  if (selector) settings.selector = selector;
  const k = value(vars.PROXY_K);
  if (k !== undefined) {
    if (!/^\d{1,3}$/.test(k) || Number(k) < LIMITS.minK || Number(k) > LIMITS.maxK) {
      throw new ConfigError(
        `PROXY_K must be an integer from ${LIMITS.minK} to ${LIMITS.maxK}, got "${k.slice(0, 20)}"`,
      );
    }
    settings.k = Number(k);
  }
  const auth = value(vars.PROXY_AUTH);
  if (auth !== undefined) {
    if (auth !== 'token' && auth !== 'passthrough')
      throw new ConfigError(`PROXY_AUTH must be "token" or "passthrough", got "${auth.slice(0, 20)}"`);
    settings.auth = auth;
  }
  for (const [name, key] of [
    ['PROXY_OPENAI_BASE_URL', 'openaiBaseURL'],
    ['PROXY_ANTHROPIC_BASE_URL', 'anthropicBaseURL'],
  ] as const) {
    const url = httpUrlVar(name, vars[name]);
    if (url !== undefined) settings[key] = url;
  }
  const openaiApiKey = value(vars.PROXY_OPENAI_API_KEY);
  if (openaiApiKey !== undefined) settings.openaiApiKey = openaiApiKey;
  const anthropicApiKey = value(vars.PROXY_ANTHROPIC_API_KEY);
  if (anthropicApiKey !== undefined) settings.anthropicApiKey = anthropicApiKey;
  const policy = value(vars.PROXY_POLICY);
  if (policy !== undefined) {
    if (!(TOOL_POLICIES as readonly string[]).includes(policy))
      throw new ConfigError(`PROXY_POLICY must be one of ${TOOL_POLICIES.join(', ')}, got "${policy.slice(0, 20)}"`);
    settings.policy = policy as ToolPolicy;
  }
  const prefixCache = value(vars.PROXY_PREFIX_CACHE);
  if (prefixCache !== undefined) {
    if (!['auto', 'on', 'off'].includes(prefixCache))
      throw new ConfigError(`PROXY_PREFIX_CACHE must be auto, on or off, got "${prefixCache.slice(0, 20)}"`);
    settings.prefixCache = prefixCache as PrefixCacheMode;
  }
  for (const [name, key, min] of [
    ['PROXY_FIRST_BYTE_TIMEOUT_MS', 'firstByteTimeoutMs', 0],
    ['PROXY_KEEPALIVE_MS', 'keepAliveMs', 100],
    ['PROXY_IDLE_TIMEOUT_MS', 'idleTimeoutMs', 0],
  ] as const) {
    const ms = value(vars[name]);
    if (ms === undefined) continue;
    if (
      !/^\d{1,9}$/.test(ms) ||
      (Number(ms) < min && Number(ms) !== 0) ||
      (key === 'keepAliveMs' && Number(ms) === 0)
    ) {
      throw new ConfigError(`${name} must be an integer number of milliseconds${min > 0 ? ` of at least ${min}` : ''}`);
    }
    settings[key] = Number(ms);
  }
  const max = value(vars.PROXY_MAX_BODY_BYTES);
  if (max !== undefined) {
    if (!/^\d{1,10}$/.test(max) || Number(max) < 1024)
      throw new ConfigError('PROXY_MAX_BODY_BYTES must be an integer of at least 1024');
    settings.maxBodyBytes = Number(max);
  }
  for (const [name, key] of [
    ['PROXY_MAX_TOOLS', 'maxTools'],
    ['PROXY_NEW_TOOL_SETS_PER_CLIENT', 'newToolSetsPerClient'],
    ['PROXY_NEW_TOOL_SETS_TOTAL', 'newToolSetsTotal'],
  ] as const) {
    const count = value(vars[name]);
    if (count === undefined) continue;
    if (!/^\d{1,9}$/.test(count) || Number(count) < 1) throw new ConfigError(`${name} must be a positive integer`);
    settings[key] = Number(count);
  }
  const depth = value(vars.PROXY_MAX_JSON_DEPTH);
  if (depth !== undefined) {
    if (!/^\d{1,4}$/.test(depth) || Number(depth) < 1 || Number(depth) > MAX_JSON_DEPTH_LIMIT)
      throw new ConfigError(`PROXY_MAX_JSON_DEPTH must be an integer from 1 to ${MAX_JSON_DEPTH_LIMIT}`);
    settings.maxJsonDepth = Number(depth);
  }
  const maxEvent = value(vars.PROXY_MAX_SSE_EVENT_BYTES);
  if (maxEvent !== undefined) {
    if (!/^\d{1,10}$/.test(maxEvent) || Number(maxEvent) < 1024)
      throw new ConfigError('PROXY_MAX_SSE_EVENT_BYTES must be an integer of at least 1024');
    settings.maxSseEventBytes = Number(maxEvent);
  }
  return settings;
}
