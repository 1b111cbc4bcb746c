/**
 * The MCP SDK (`@modelcontextprotocol/sdk`, an optional peer dependency), imported on the
 * first mount so the core bundle never carries it. Each transport imports its own module.
 */
import { errorMessage } from '../../describe-error.js';

/** The parts of the SDK every mount uses. */
export type Sdk = Awaited<ReturnType<typeof importSdk>>;
let sdkPromise: Promise<Sdk> | undefined;

async function importSdk() {
  const [client, types, validation] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/cfworker'),
  ]);
  return {
    Client: client.Client,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ListChanged: types.ToolListChangedNotificationSchema,
    // Ajv (the SDK's default) compiles with `new Function`, which Workers forbid.
    Validator: validation.CfWorkerJsonSchemaValidator,
  };
}

/**
 * The SDK, loaded once; a failed load is retried on the next call.
 *
 * @example
 * const { Client } = await loadSdk()
 */
export function loadSdk(): Promise<Sdk> {
  sdkPromise ??= importSdk().catch((error: unknown) => {
    sdkPromise = undefined;
    throw new Error(
      `loopctl/mcp needs the optional peer dependency @modelcontextprotocol/sdk (${errorMessage(error)})`,
    );
  });
  return sdkPromise;
}
