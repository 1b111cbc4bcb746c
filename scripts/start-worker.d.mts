// Types for the parts of start-worker.mjs that tests import.
/** Environment for wrangler: no telemetry, no Request.cf download, no prompts. */
export declare const OFFLINE_ENV: Readonly<Record<string, string>>;
/** The documented variables `npm start` passes from the environment. */
export declare const PASSED_VARS: readonly string[];
export declare function varArgs(env?: Record<string, string | undefined>): { names: string[]; args: string[] };
export declare const WORKER_MODEL_FILES: readonly string[];
/** Bundle the `--env onnx` worker into `outdir`; Miniflare's `modulesRoot` and `modules` for it. */
export declare function buildOnnxWorker(options: { outdir: string; assets: string }): {
  modulesRoot: string;
  modules: { type: 'CompiledWasm' | 'ESModule'; path: string }[];
};
