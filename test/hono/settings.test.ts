/**
 * One declaration per setting (src/hono/settings.ts): the reader, the bounds and the defaults
 * every entry uses come from it.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigError } from '../../src/hono/config-vars.js';
import { optionsFromVars } from '../../src/hono/env-options.js';
import { PROXY_DEFAULTS, proxySettingsFromVars } from '../../src/hono/proxy/proxy-env.js';
import type { ProxySettings } from '../../src/hono/proxy/proxy-routes.js';
import { proxyConfig } from '../../src/hono/proxy/proxy-settings.js';
import type { Setting, SettingValues } from '../../src/hono/setting.js';
import { readSettings, settingDefaults } from '../../src/hono/setting.js';
import {
  APP_SETTINGS,
  ENTRY_SETTINGS,
  MODEL_SETTINGS,
  PROXY_SETTINGS,
  WORKER_SETTINGS,
} from '../../src/hono/settings.js';
import { DEFAULT_K } from '../../src/rank/top-k.js';
import { namedSelectors } from '../../src/select/named-selectors.js';

describe('the settings declarations', () => {
  it('declare each variable once, and each flag once', () => {
    const all = [APP_SETTINGS, MODEL_SETTINGS, PROXY_SETTINGS, WORKER_SETTINGS, ENTRY_SETTINGS].flatMap((table) =>
      Object.values<Setting>(table),
    );
    expect(new Set(all.map((s) => s.variable)).size).toBe(all.length);
    const flags = all.flatMap((s) => (s.flag ? [s.flag] : []));
    expect(new Set(flags).size).toBe(flags.length);
  });

  it('give the proxy its defaults, the default k included', () => {
    expect(PROXY_DEFAULTS.k).toBe(DEFAULT_K);
    expect(PROXY_DEFAULTS).toMatchObject({ auth: 'token', policy: 'auto', prefixCache: 'auto', keepAliveMs: 10_000 });
    expect(Object.isFrozen(PROXY_DEFAULTS)).toBe(true);
  });

  it('derive the option types: what the variables set is a part of ProxySettings', () => {
    expectTypeOf<SettingValues<typeof PROXY_SETTINGS>>().toExtend<ProxySettings>();
    expectTypeOf(PROXY_DEFAULTS.auth).toEqualTypeOf<'token' | 'passthrough'>();
  });

  it('read every variable with one reader: trimmed, blank unset, bounded as declared', () => {
    expect(readSettings(PROXY_SETTINGS, { PROXY_K: ' 6 ', PROXY_AUTH: '', OTHER: 'x' })).toEqual({ k: 6 });
    expect(() => proxySettingsFromVars({ PROXY_KEEPALIVE_MS: '0' })).toThrow(
      new ConfigError('PROXY_KEEPALIVE_MS must be an integer number of milliseconds of at least 100'),
    );
    expect(proxySettingsFromVars({ PROXY_IDLE_TIMEOUT_MS: '0' }).idleTimeoutMs).toBe(0);
    expect(() => proxySettingsFromVars({ PROXY_POLICY: 'loose' })).toThrow(
      'PROXY_POLICY must be one of auto, stable, per-message, narrow, got "loose"',
    );
    expect(() => proxySettingsFromVars({ PROXY_PREFIX_CACHE: 'yes' })).toThrow(
      'PROXY_PREFIX_CACHE must be auto, on or off, got "yes"',
    );
    expect(() => optionsFromVars({ MODEL_PROVIDER: 'gemini' })).toThrow(
      'MODEL_PROVIDER must be "openai" or "anthropic", got "gemini"',
    );
    expect(() => proxySettingsFromVars({ PROXY_MAX_JSON_DEPTH: '1025' })).toThrow(
      'PROXY_MAX_JSON_DEPTH must be an integer from 1 to 1024',
    );
  });

  it("read the Workers entry's own variables: VECTORS_TTL_SECONDS is 0 or at least 60", () => {
    expect(settingDefaults(WORKER_SETTINGS).vectorsTtlSeconds).toBe(604_800);
    expect(readSettings(WORKER_SETTINGS, { VECTORS_TTL_SECONDS: '0' }).vectorsTtlSeconds).toBe(0);
    expect(() => readSettings(WORKER_SETTINGS, { VECTORS_TTL_SECONDS: '30' })).toThrow(
      'VECTORS_TTL_SECONDS must be 0 (never expire) or a whole number of seconds of at least 60',
    );
  });
});

describe('one bound in code and in the environment', () => {
  const routes = (proxy: Record<string, unknown>) =>
    proxyConfig({ selectors: namedSelectors(), ...proxy } as Parameters<typeof proxyConfig>[0]);

  it('refuses in code what the variable refuses, naming the declared bound', () => {
    expect(() => proxySettingsFromVars({ PROXY_KEEPALIVE_MS: '50' })).toThrow(ConfigError);
    expect(() => routes({ keepAliveMs: 50 })).toThrow(
      new RangeError('proxy keepAliveMs must be an integer number of milliseconds of at least 100, got 50'),
    );
    expect(() => routes({ maxSseEventBytes: 10 })).toThrow(/maxSseEventBytes must be an integer of at least 1024/);
    expect(() => routes({ maxBodyBytes: 1.5 })).toThrow(/maxBodyBytes must be/);
    expect(() => routes({ k: 0 })).toThrow(/proxy k must be an integer from 1 to/);
  });

  it('resolves unset settings to the declared defaults', () => {
    const config = routes({});
    expect(config.k).toBe(PROXY_DEFAULTS.k);
    expect(config.keepAliveMs).toBe(PROXY_DEFAULTS.keepAliveMs);
    expect(config.maxBodyBytes).toBe(PROXY_DEFAULTS.maxBodyBytes);
    expect(config.maxTools).toBe(PROXY_DEFAULTS.maxTools);
    expect(config.maxSseEventBytes).toBe(PROXY_DEFAULTS.maxSseEventBytes);
    expect(config.idleMs).toBe(PROXY_DEFAULTS.idleTimeoutMs);
  });
});
