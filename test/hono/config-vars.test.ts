import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/hono/config-vars.js';
import { optionsFromVars } from '../../src/hono/env-options.js';
import { LIMITS } from '../../src/hono/limits.js';
import { proxySettingsFromVars } from '../../src/hono/proxy/proxy-env.js';

describe('configuration variables', () => {
  it('the app and the proxy refuse bad values with the same ConfigError, named after the variable', () => {
    expect(() => optionsFromVars({ MODEL_BASE_URL: 'ftp://x' })).toThrow(
      new ConfigError('MODEL_BASE_URL must be an http(s) URL'),
    );
    expect(() => optionsFromVars({ PROXY_OPENAI_BASE_URL: 'ftp://x' })).toThrow(
      new ConfigError('PROXY_OPENAI_BASE_URL must be an http(s) URL'),
    );
    expect(() => proxySettingsFromVars({ PROXY_ANTHROPIC_BASE_URL: 'not a url' })).toThrow(ConfigError);
  });

  it('PROXY_K follows the one k limit of the API', () => {
    expect(proxySettingsFromVars({ PROXY_K: String(LIMITS.maxK) }).k).toBe(LIMITS.maxK);
    expect(() => proxySettingsFromVars({ PROXY_K: String(LIMITS.maxK + 1) })).toThrow(
      `PROXY_K must be an integer from 1 to ${LIMITS.maxK}, got "${LIMITS.maxK + 1}"`,
    );
  });

  it('one key per proxy upstream, and the Host names to answer to', () => {
    expect(proxySettingsFromVars({ PROXY_OPENAI_API_KEY: ' sk-o ', PROXY_ANTHROPIC_API_KEY: 'sk-a' })).toEqual({
      openaiApiKey: 'sk-o',
      anthropicApiKey: 'sk-a',
    });
    expect(optionsFromVars({ ALLOWED_HOSTS: 'Proxy.Example, [::1], 127.0.0.1' }).allowedHosts).toEqual([
      'proxy.example',
      '[::1]',
      '127.0.0.1',
    ]);
    expect(optionsFromVars({ ALLOWED_HOSTS: '*' }).allowedHosts).toEqual(['*']);
    expect(() => optionsFromVars({ ALLOWED_HOSTS: 'localhost:8787' })).toThrow(
      new ConfigError(
        'ALLOWED_HOSTS must list host names without a port (IPv6 in brackets), or *, got "localhost:8787"',
      ),
    );
  });

  it('blank values are unset', () => {
    expect(
      optionsFromVars({ MODEL_BASE_URL: '   ', PROXY_K: '', ALLOWED_HOSTS: ' ', PROXY_OPENAI_API_KEY: '' }),
    ).toEqual({
      model: {},
      proxy: {},
    });
  });
});
