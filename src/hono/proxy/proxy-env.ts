/**
 * The proxy's configuration variables, read into {@link ProxySettings}. Every entry (Workers,
 * Deno, Node) reads the same names.
 */
import { ConfigError, httpUrlVar, varText } from '../config-vars.js';
import { LIMITS } from '../limits.js';
import type { ProxySettings } from './proxy-routes.js';

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
  /** Largest request body, in bytes (default 8 MiB). */
  PROXY_MAX_BODY_BYTES?: string;
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
      throw new ConfigError(`PROXY_K must be an integer from ${LIMITS.minK} to ${LIMITS.maxK}, got "${k.slice(0, 20)}"`);
    }
    settings.k = Number(k);
  }
  const auth = value(vars.PROXY_AUTH);
  if (auth !== undefined) {
    if (auth !== 'token' && auth !== 'passthrough') throw new ConfigError(`PROXY_AUTH must be "token" or "passthrough", got "${auth.slice(0, 20)}"`);
    settings.auth = auth;
  }
  for (const [name, key] of [
    ['PROXY_OPENAI_BASE_URL', 'openaiBaseURL'],
    ['PROXY_ANTHROPIC_BASE_URL', 'anthropicBaseURL'],
  ] as const) {
    const url = httpUrlVar(name, vars[name]);
    if (url !== undefined) settings[key] = url;
  }
  const max = value(vars.PROXY_MAX_BODY_BYTES);
  if (max !== undefined) {
    if (!/^\d{1,10}$/.test(max) || Number(max) < 1024) throw new ConfigError('PROXY_MAX_BODY_BYTES must be an integer of at least 1024');
    settings.maxBodyBytes = Number(max);
  }
  return settings;
}
