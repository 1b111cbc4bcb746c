import { Hash64 } from '../../hash.js';

/**
 * Registry names for a server's tools: prefixed, valid on every provider's wire, stable
 * across re-listings and free of collisions.
 */

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/**
 * Registry names for a server's tool names: the prefix joined by `__`, characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`, and a short hash of the server's name added when that
 * still collides or runs past 64 characters. Names that need no change are claimed first,
 * and names given before are kept, so one tool never renames another.
 *
 * @example
 * assignNames(['create_issue', 'repo.list'], 'github')
 * // Map { 'create_issue' => 'github__create_issue', 'repo.list' => 'github__repo_list' }
 */
export function assignNames(
  remotes: readonly string[],
  prefix: string | undefined,
  previous: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const result = new Map<string, string>();
  const claimed = new Set<string>();
  const claim = (remote: string, local: string): void => {
    result.set(remote, local);
    claimed.add(local);
  };
  const wanted = (remote: string): string => joinPrefix(prefix, remote);
  for (const remote of remotes) {
    const kept = previous.get(remote);
    if (kept !== undefined && !claimed.has(kept)) claim(remote, kept);
  }
  for (const remote of remotes) {
    if (result.has(remote)) continue;
    const local = wanted(remote);
    if (WIRE_NAME.test(local) && !claimed.has(local)) claim(remote, local);
  }
  for (const remote of remotes) {
    if (result.has(remote)) continue;
    const readable = wanted(remote).replace(/[^a-zA-Z0-9_-]/g, '_');
    if (readable.length <= MAX_NAME && !claimed.has(readable)) {
      claim(remote, readable);
      continue;
    }
    let salt = 0;
    let hashed = hashedName(readable, remote, salt);
    while (claimed.has(hashed)) hashed = hashedName(readable, remote, ++salt);
    claim(remote, hashed);
  }
  return result;
}

function joinPrefix(prefix: string | undefined, remote: string): string {
  if (!prefix) return remote;
  return /[_-]$/.test(prefix) ? `${prefix}${remote}` : `${prefix}__${remote}`;
}

/** The readable name clipped, with 8 hex characters of the project's hash of the server's name. */
function hashedName(readable: string, remote: string, salt: number): string {
  const hash = new Hash64(salt).update(remote).digest().slice(0, 8);
  return `${readable.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}
