/**
 * The proxy's learning for one request: before selection, the tenant's snapshot for this
 * registry picks the selector (a learned copy when there are examples); after selection, the
 * examples the request carries go to the store, detached, so learning never delays or fails a
 * request. A store that is slow or fails leaves the request ranked unlearned, with the reason.
 */
import { errorMessage } from '../../../describe-error.js';
import type { ToolSchema } from '../../../registry/schema.js';
import type { AsyncToolSelector } from '../../../select/selector.js';
import type { ProxyAuthMode } from '../proxy-auth.js';
import type { ProxyRequest } from '../proxy-protocol.js';
import { likeAnExample } from './example-words.js';
import type { ProxyLearning } from './proxy-learning.js';
import { registryOf, tenantOf } from './tenant-id.js';
import { trafficExamples } from './traffic-examples.js';
import type { TrafficSnapshot } from './traffic-store.js';

// A conversation this large is a pasted document, not one worth hashing every turn. Measured on
// the conversation alone: the tool list is not hashed, and a large registry's list (bfcl's 1,857
// tools are 1.15 MB of JSON) once made every request of that registry too large to learn from.
const MAX_LEARNED_CONVERSATION_CHARS = 1 << 20;

// The registry digest of a tool list, once per list object (the same object per tools text).
const registries = new WeakMap<readonly ToolSchema[], Promise<string>>();

/**
 * One request's learning.
 *
 * @example
 * const learning = await RequestLearning.begin(config.learning, raw.headers, config.auth, request)
 * const selector = learning.wrap(base) // learning.learned: examples that shaped it
 * waitUntil(learning.record())
 */
export class RequestLearning {
  /** Examples that shaped the selection (0: ranked unlearned). */
  learned = 0;

  private constructor(
    private readonly learning: ProxyLearning,
    private readonly request: ProxyRequest,
    private readonly tenant: string,
    private readonly registry: string,
    private readonly snapshot: TrafficSnapshot | undefined,
    /** Why the request was ranked unlearned though learning is on. */
    readonly degraded: string | undefined,
    private readonly waitUntil: ((work: Promise<unknown>) => void) | undefined,
  ) {}

  /**
   * Begin: the tenant, the registry, the snapshot (a failed or slow read is a reason, not a throw).
   *
   * @example
   * const learning = await RequestLearning.begin(config.learning, raw.headers, config.auth, request)
   */
  static async begin(
    learning: ProxyLearning,
    headers: Headers,
    auth: ProxyAuthMode,
    request: ProxyRequest,
    waitUntil?: (work: Promise<unknown>) => void,
  ): Promise<RequestLearning> {
    const tenant = await tenantOf(headers, auth, learning.secret);
    let registry = registries.get(request.selectable);
    if (!registry) {
      registry = registryOf(request.selectable.map((tool) => tool.name));
      registries.set(request.selectable, registry);
    }
    const id = await registry;
    try {
      const snapshot = await learning.snapshot(tenant, id);
      return new RequestLearning(learning, request, tenant, id, snapshot, undefined, waitUntil);
    } catch (error) {
      const reason = `ranked unlearned: ${errorMessage(error)}`;
      return new RequestLearning(learning, request, tenant, id, undefined, reason, waitUntil);
    }
  }

  /**
   * The selector to rank with: `base`'s learned copy for this tenant, once built.
   *
   * @example
   * const selector = learning.wrap(await table.get('hybrid', 8))
   */
  wrap(base: AsyncToolSelector): AsyncToolSelector {
    // A prompt unlike every example is ranked as without learning (example-words.ts).
    if (!this.snapshot || !likeAnExample(this.request.query, this.snapshot.examples)) return base;
    const { selector, learned } = this.learning.selectors.pick(
      base,
      `${this.tenant}/${this.registry}`,
      this.snapshot,
      this.request.selectable,
      this.waitUntil,
    );
    this.learned = learned;
    return selector;
  }

  /**
   * Record the examples the request carries, detached: resolves when stored (or given up), and
   * never rejects. Nothing is recorded from a request whose tools fell open.
   *
   * @example
   * waitUntil(learning.record())
   */
  async record(): Promise<void> {
    const { request, learning } = this;
    const read = request.protocol.exampleSteps;
    const span = request.conversationSpan;
    const chars = span ? span.end - span.start : request.text.length;
    if (!read || chars > MAX_LEARNED_CONVERSATION_CHARS) return;
    try {
      const names = new Set(request.selectable.map((tool) => tool.name));
      const examples = await trafficExamples(request.protocol.name, read(request.body), names);
      if (examples.length === 0) return;
      const outcome = await learning.store.add(this.tenant, this.registry, examples);
      if (outcome.written > 0) learning.invalidate(this.tenant, this.registry);
    } catch (error) {
      learning.onError?.(error);
    }
  }
}
