/**
 * The names of the configuration variables, as lists a launcher can pass on (`npm start` hands
 * each one set in the environment to `wrangler dev --var`). Read from the declarations
 * (`settings.ts`), so a variable declared there reaches every launcher without being listed
 * twice. This file and the declarations load on their own, without the app.
 */

import type { LoopctlVars } from './env-options.js';
import type { SettingTable } from './setting.js';
import { APP_SETTINGS, MODEL_SETTINGS, PROXY_SETTINGS, WORKER_SETTINGS } from './settings.js';

const variables = (table: SettingTable): string[] => Object.values(table).map((declared) => declared.variable);

/**
 * Every variable {@link LoopctlVars} declares (the app's and the proxy's): what every entry reads.
 *
 * @example
 * const set = LOOPCTL_VAR_NAMES.filter((name) => process.env[name] !== undefined)
 */
export const LOOPCTL_VAR_NAMES: readonly (keyof LoopctlVars)[] = Object.freeze(
  // The order `npm start` prints them in: the token, the model, the app's others, the proxy's.
  [
    APP_SETTINGS.token.variable,
    ...variables(MODEL_SETTINGS),
    ...variables(APP_SETTINGS).filter((name) => name !== APP_SETTINGS.token.variable),
    ...variables(PROXY_SETTINGS),
  ] as (keyof LoopctlVars)[],
);

/**
 * Every text variable the Workers entry reads: {@link LOOPCTL_VAR_NAMES}, `EMBEDDING_MODEL` and
 * `VECTORS_TTL_SECONDS`.
 *
 * @example
 * const args = WORKER_VAR_NAMES.filter((name) => env[name]).flatMap((name) => ['--var', `${name}:${env[name]}`])
 */
export const WORKER_VAR_NAMES: readonly string[] = Object.freeze([...LOOPCTL_VAR_NAMES, ...variables(WORKER_SETTINGS)]);
