/**
 * Where the proxy forwards each protocol: the one rule the routes use and the `loopctl serve`
 * banner prints, so what the banner says is what the proxy does.
 */
import { MODEL_DEFAULTS } from '../settings.js';
import type { WireProtocol } from './proxy-protocol.js';

/** The settings the upstreams come from (a subset of `ProxySettings`). */
export interface UpstreamSettings {
  readonly openaiBaseURL?: string | undefined;
  readonly anthropicBaseURL?: string | undefined;
}

/**
 * Each protocol's upstream base, without a trailing slash; undefined when none is configured.
 * OpenAI Chat Completions and Responses: `openaiBaseURL` (with its `/v1`), else the model's base
 * URL when the model speaks OpenAI (default a local Ollama). Anthropic: `anthropicBaseURL` (the
 * origin; a trailing `/v1` is dropped), else the model's when it speaks Anthropic.
 *
 * @example
 * proxyUpstreams({ openaiBaseURL: 'https://api.openai.com/v1/' }, undefined)
 * // { openai: 'https://api.openai.com/v1', responses: 'https://api.openai.com/v1', anthropic: undefined }
 */
export function proxyUpstreams(
  settings: UpstreamSettings,
  model: { readonly provider?: 'openai' | 'anthropic'; readonly baseURL?: string } | undefined,
): Record<WireProtocol, string | undefined> {
  const openai = trimSlash(
    settings.openaiBaseURL ??
      (model?.provider !== 'anthropic' ? (model?.baseURL ?? MODEL_DEFAULTS.openai.baseURL) : undefined),
  );
  const anthropic = trimSlash(
    settings.anthropicBaseURL ??
      (model?.provider === 'anthropic' ? (model.baseURL ?? 'https://api.anthropic.com') : undefined),
  )?.replace(/\/v1$/, '');
  return { openai, responses: openai, anthropic };
}

function trimSlash(url: string | undefined): string | undefined {
  return url?.replace(/\/+$/, '');
}
