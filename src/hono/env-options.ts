/**
 * One mapping from configuration variables to {@link AppOptions}, shared by the Workers,
 * Deno and Node entries so the three runtimes read the same names.
 */

import { mergeOptions } from '../options.js';
import type { AppOptions, ModelOptions } from './app.js';
import { ConfigError, httpUrlVar, varText } from './config-vars.js';
import type { ProxyVars } from './proxy/index.js';
import { proxySettingsFromVars } from './proxy/index.js';

/** The app options configuration variables set. */
export type VarOptions = Pick<
  AppOptions,
  'token' | 'model' | 'corsOrigins' | 'allowedHosts' | 'proxy' | 'maxNewEmbeds' | 'uploadBufferBytes'
>;

/**
 * The variables every entry reads. In Workers they are `[vars]` and secrets; in Deno and
 * Node, environment variables.
 */
export interface LoopctlVars extends ProxyVars {
  /** Bearer token required on `/v1/*` (a secret). */
  LOOPCTL_TOKEN?: string;
  /** `openai` (default) or `anthropic`. */
  MODEL_PROVIDER?: string;
  /** Default `http://127.0.0.1:11434/v1` (a local Ollama). */
  MODEL_BASE_URL?: string;
  /** Default `qwen3:4b` (openai) or `claude-haiku-4-5` (anthropic). */
  MODEL_NAME?: string;
  /**
   * The model provider's API key (a secret): `/v1/runs`' model, and the proxy's upstream of
   * `MODEL_PROVIDER`'s protocol only (see `PROXY_OPENAI_API_KEY`, `PROXY_ANTHROPIC_API_KEY`).
   */
  MODEL_API_KEY?: string;
  /** Comma-separated origins allowed by CORS, or `*`. Default none. */
  CORS_ORIGINS?: string;
  /** Most tool texts the dense selectors embed for one request (default 512). */
  LOOPCTL_MAX_NEW_EMBEDS?: string;
  /**
   * Comma-separated `Host` names the server answers to, any port (`*`: any). Default any, but a
   * Node or Deno server on a loopback address answers only `127.0.0.1`, `localhost` and `[::1]`.
   */
  ALLOWED_HOSTS?: string;
  /** Bytes all unfinished request bodies may hold at once, at least 65536 (default 64 MiB). */
  LOOPCTL_UPLOAD_BUFFER_BYTES?: string;
}

/**
 * Read {@link LoopctlVars} into app options. Throws {@link ConfigError} on a bad value.
 *
 * @example
 * const app = createApp({ ...optionsFromVars(env), registry, cache: kvVectorCache(env.VECTORS) })
 */
export function optionsFromVars(vars: LoopctlVars): VarOptions {
  const value = varText;
  const provider = value(vars.MODEL_PROVIDER);
  if (provider !== undefined && provider !== 'openai' && provider !== 'anthropic') {
    throw new ConfigError(`MODEL_PROVIDER must be "openai" or "anthropic", got "${provider.slice(0, 40)}"`);
  }
  const baseURL = httpUrlVar('MODEL_BASE_URL', vars.MODEL_BASE_URL);
  const origins = value(vars.CORS_ORIGINS)
    ?.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const token = value(vars.LOOPCTL_TOKEN);
  const model = value(vars.MODEL_NAME);
  const apiKey = value(vars.MODEL_API_KEY);
  const allowedHosts = hostNames(value(vars.ALLOWED_HOSTS));
  const proxy: AppOptions['proxy'] = proxySettingsFromVars(vars);
  const embeds = value(vars.LOOPCTL_MAX_NEW_EMBEDS);
  if (embeds !== undefined && !(/^\d{1,7}$/.test(embeds) && Number(embeds) >= 1))
    throw new ConfigError('LOOPCTL_MAX_NEW_EMBEDS must be a positive integer');
  const maxNewEmbeds = embeds !== undefined ? Number(embeds) : undefined;
  const uploadBuffer = value(vars.LOOPCTL_UPLOAD_BUFFER_BYTES);
  if (uploadBuffer !== undefined && (!/^\d{1,12}$/.test(uploadBuffer) || Number(uploadBuffer) < 65_536))
    throw new ConfigError('LOOPCTL_UPLOAD_BUFFER_BYTES must be an integer of at least 65536');
  const uploadBufferBytes = uploadBuffer !== undefined ? Number(uploadBuffer) : undefined;
  // No key set to undefined: callers spread these under their own options.
  const corsOrigins = origins?.length ? origins : undefined;
  return mergeOptions(
    { model: mergeOptions<ModelOptions>({}, { provider, baseURL, model, apiKey }) },
    { token, corsOrigins, allowedHosts, proxy, maxNewEmbeds, uploadBufferBytes },
  );
}

/** `ALLOWED_HOSTS`: names (an IPv6 address in brackets) without a port, or `*`. */
function hostNames(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const bad = names.find((name) => !/^(?:\*|\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)$/.test(name));
  if (bad !== undefined)
    throw new ConfigError(
      `ALLOWED_HOSTS must list host names without a port (IPv6 in brackets), or *, got "${bad.slice(0, 40)}"`,
    );
  return names.length > 0 ? names : undefined;
}
