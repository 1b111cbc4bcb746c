// Types for the parts of start-worker.mjs that tests import.
/** Environment for wrangler: no telemetry, no Request.cf download, no prompts. */
export declare const OFFLINE_ENV: Readonly<Record<string, string>>;
/** The documented variables `npm start` passes from the environment. */
export declare const PASSED_VARS: readonly string[];
export declare function varArgs(env?: Record<string, string | undefined>): { names: string[]; args: string[] };
export declare const WORKER_MODEL_FILES: readonly string[];
