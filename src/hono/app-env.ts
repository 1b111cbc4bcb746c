/**
 * The Hono environment of every app route: the client's abort signal, set once per request.
 * Its own file so the routes `createApp` mounts (`mcp-route.ts`) name it without importing the
 * app that mounts them.
 *
 * @example
 * const app = new Hono<AppEnv>()
 */
export type AppEnv = { Variables: { clientSignal: AbortSignal | undefined } };
