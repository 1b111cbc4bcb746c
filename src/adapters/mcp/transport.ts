/**
 * The contract between the mount and a way of reaching a server (Streamable HTTP, stdio):
 * the mount owns the MCP client, requests, retries and the registry; a transport makes one
 * SDK transport per connection and knows how to explain and end it.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** How a failed request is treated: resent on a new connection (`session`) or reported (`transport`). */
export type FailureKind = 'session' | 'transport';

/** One way of reaching a server. */
export interface ServerTransport {
  /** A new, unstarted SDK transport for one connection (the client's `connect` starts it). */
  create(): Promise<ConnectionTransport>;
}

/** The transport of one connection, with what only it knows about its failures. */
export interface ConnectionTransport {
  readonly transport: Transport;
  /** This transport's own reading of an error, or undefined to leave it to the mount. */
  classify(error: unknown): FailureKind | undefined;
  /** This transport's own one-line account of an error, or undefined to leave it to the mount. */
  describe(error: unknown): string | undefined;
  /**
   * Why the connection is gone when the transport knows better than the SDK (a process that
   * exited, with its stderr), else undefined.
   */
  lostReason(): string | undefined;
  /** End the connection politely and within a bound (HTTP: delete the session). Never rejects. */
  end(): Promise<void>;
}
