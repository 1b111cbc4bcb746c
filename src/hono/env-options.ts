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
export type VarOptions = Pick<AppOptions, 'token' | 'model' | 'corsOrigins' | 'proxy' | 'uploadBufferBytes'>;

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
  /** The model provider's API key (a secret). */
  MODEL_API_KEY?: string;
  /** Comma-separated origins allowed by CORS, or `*`. Default none. */
  CORS_ORIGINS?: string;
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
  const proxy: AppOptions['proxy'] = proxySettingsFromVars(vars);
  const uploadBuffer = value(vars.LOOPCTL_UPLOAD_BUFFER_BYTES);
  if (uploadBuffer !== undefined && (!/^\d{1,12}$/.test(uploadBuffer) || Number(uploadBuffer) < 65_536))
    throw new ConfigError('LOOPCTL_UPLOAD_BUFFER_BYTES must be an integer of at least 65536');
  const uploadBufferBytes = uploadBuffer !== undefined ? Number(uploadBuffer) : undefined;
  // No key set to undefined: callers spread these under their own options.
  const corsOrigins = origins?.length ? origins : undefined;
  return mergeOptions(
    { model: mergeOptions<ModelOptions>({}, { provider, baseURL, model, apiKey }) },
    { token, corsOrigins, proxy, uploadBufferBytes },
  );
}
