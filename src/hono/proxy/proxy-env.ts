/**
 * The proxy's configuration variables, read into {@link ProxySettings}. Every entry (Workers,
 * Deno, Node, `loopctl serve`) reads the same names: the ones `PROXY_SETTINGS` declares, with
 * their bounds and defaults (`../settings.ts`).
 */
import type { SettingDefaults, SettingValues, SettingVars } from '../setting.js';
import { readSettings, settingDefaults } from '../setting.js';
import { PROXY_SETTINGS } from '../settings.js';
import type { ProxySettings } from './proxy-routes.js';

/** The variables the proxy reads (`PROXY_*`, see `PROXY_SETTINGS`). In Workers they are `[vars]`; elsewhere, the environment. */
export type ProxyVars = SettingVars<typeof PROXY_SETTINGS>;

/** The proxy settings its variables set: a part of {@link ProxySettings}. */
export type ProxyVarSettings = SettingValues<typeof PROXY_SETTINGS>;

/**
 * The proxy's fixed defaults, from their declarations (`PROXY_SETTINGS`): what the routes merge
 * their options over.
 *
 * @example
 * PROXY_DEFAULTS.k // 8
 */
export const PROXY_DEFAULTS: Readonly<SettingDefaults<typeof PROXY_SETTINGS>> = Object.freeze(
  settingDefaults(PROXY_SETTINGS),
);

/**
 * Read {@link ProxyVars}. Throws `ConfigError` on a bad value (the selector name is checked
 * against the selector table when the routes are built).
 *
 * @example
 * proxySettingsFromVars({ PROXY_K: '6', PROXY_AUTH: 'passthrough' }) // { k: 6, auth: 'passthrough' }
 */
export function proxySettingsFromVars(vars: ProxyVars): ProxySettings {
  return readSettings(PROXY_SETTINGS, vars);
}
