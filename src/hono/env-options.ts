/**
 * One mapping from configuration variables to {@link AppOptions}, shared by the Workers,
 * Deno and Node entries and `loopctl serve`, so every runtime reads the same names: the ones
 * `settings.ts` declares, each read, bounded and defaulted as declared there.
 */

import type { AppOptions } from './app.js';
import type { ProxyVars } from './proxy/index.js';
import { proxySettingsFromVars } from './proxy/index.js';
import type { SettingVars } from './setting.js';
import { readSettings } from './setting.js';
import { APP_SETTINGS, MODEL_SETTINGS } from './settings.js';

/** The app options configuration variables set. */
export type VarOptions = Pick<
  AppOptions,
  'token' | 'model' | 'corsOrigins' | 'allowedHosts' | 'proxy' | 'maxNewEmbeds' | 'uploadBufferBytes' | 'mcpServers'
>;

/**
 * The variables every entry reads (`MODEL_SETTINGS`, `APP_SETTINGS` and `PROXY_SETTINGS` in
 * `settings.ts` declare each one: its default, its bound, its doc line). In Workers they are
 * `[vars]` and secrets; in Deno and Node, environment variables.
 */
export type LoopctlVars = SettingVars<typeof MODEL_SETTINGS> & SettingVars<typeof APP_SETTINGS> & ProxyVars;

/**
 * Read {@link LoopctlVars} into app options. Throws `ConfigError` on a bad value.
 *
 * @example
 * const app = createApp({ ...optionsFromVars(env), registry, cache: kvVectorCache(env.VECTORS) })
 */
export function optionsFromVars(vars: LoopctlVars): VarOptions {
  // No key set to undefined: callers spread these under their own options.
  const model = readSettings(MODEL_SETTINGS, vars);
  return { model, ...readSettings(APP_SETTINGS, vars), proxy: proxySettingsFromVars(vars) };
}
