/** Values shared by the workerd test config (Node) and the tests (workerd). */
export const TEST_TOKEN = 'workerd-suite-token-0123456789abcdef';
export const TEST_API_KEY = 'sk-workerd-suite-model-key';
export const TEST_ORIGIN = 'https://demo.example';
/** Keep in step with wrangler.toml. */
export const COMPATIBILITY_DATE = '2026-04-01';
/** Keep in step with wrangler.toml. */
export const COMPATIBILITY_FLAGS: readonly string[] = ['enable_request_signal'];
/** The embedder id the vectors file in the test assets folder was built with. */
export const ASSET_EMBEDDER_ID = 'test/asset-seed';
/** The MCP notes upstream's bearer token; the worker reads it from a binding through `${NOTES_TOKEN}`. */
export const NOTES_TOKEN = 'notes-upstream-secret-42';
