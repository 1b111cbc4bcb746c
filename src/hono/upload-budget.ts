/**
 * The bytes all unfinished request bodies may hold at once, in one process or isolate. Each
 * body is capped on its own (`maxBodyBytes`), but many uploads at once were not: 32 connections
 * sending 4 MB of the 8 MB they declared held 280 MB until their clients left. The body reader
 * (`read-body.ts`) takes from one shared budget as its buffer grows and gives it all back when
 * the body is read or refused; a body that would pass the budget is refused (503, Retry-After)
 * and drops what it held.
 */

/** The bytes unfinished uploads may hold at once by default: 64 MiB (eight 8 MiB prompts). */
export const DEFAULT_UPLOAD_BUFFER_BYTES = 64 * 1024 * 1024;

/** Seconds a client refused for a full budget is asked to wait (`Retry-After`). */
export const UPLOAD_RETRY_AFTER_SECONDS = 1;

/** A count of bytes held by unfinished uploads, against a limit. */
export interface UploadBudget {
  /** The most bytes held at once. */
  readonly limit: number;
  /** Bytes held now. */
  readonly held: number;
  /** Hold `bytes` more: true, or false (holding nothing more) when that would pass the limit. */
  take(bytes: number): boolean;
  /** Give back `bytes` taken before. */
  give(bytes: number): void;
}

/**
 * A budget of `limit` bytes for unfinished uploads, shared by every body read with it.
 *
 * @example
 * const budget = uploadBudget(64 * 1024 * 1024)
 * const bytes = await readBody(request, { maxBytes: 8 * 1024 * 1024, budget })
 */
export function uploadBudget(limit = DEFAULT_UPLOAD_BUFFER_BYTES): UploadBudget {
  if (!(Number.isSafeInteger(limit) && limit > 0))
    throw new RangeError(`upload budget must be a positive integer, got ${limit}`);
  let held = 0;
  return {
    limit,
    get held() {
      return held;
    },
    take(bytes) {
      if (held + bytes > limit) return false;
      held += bytes;
      return true;
    },
    give(bytes) {
      held = Math.max(0, held - bytes);
    },
  };
}
