/**
 * The proxy's request path, one named step after another over one {@link RequestContext}:
 *
 *     gate → read → parse → plan → edit → forward (→ answer)
 *
 * - **gate**: an upstream is configured for the protocol, and the caller holds the proxy token;
 * - **read**: a JSON body, the `x-loopctl-*` controls, the body within its size budget;
 * - **parse**: the protocol's dialect reads the request (`proxy-request.ts`), large bodies in steps;
 * - **plan**: the tool policy, consulted once, and the selection it asks for (`proxy-plan.ts`);
 * - **edit**: the planned edits applied to the client's own text (encoded in steps when large);
 * - **forward**: the upstream call, the search rounds, the client's answer (`proxy-forward.ts`).
 *
 * Every refusal on the way is answered in the protocol's own error shape.
 */
import { isJsonMediaType } from '../json-media-type.js';
import { applyEdits } from './body-edits.js';
import { encodeEditedInSteps, parseObjectInSteps, STEP_CHARS } from './body-in-steps.js';
import { JsonDepthError } from './json-nesting.js';
import type { Edit } from './json-spans.js';
import { isLargeBody, largeBodyTurn, nextTurn } from './large-body-turn.js';
import { providerError } from './provider-errors.js';
import { authorize } from './proxy-auth.js';
import type { ProxyControls } from './proxy-controls.js';
import { proxyControls } from './proxy-controls.js';
import { forward } from './proxy-forward.js';
import { planRequest } from './proxy-plan.js';
import type { ProxyRequest } from './proxy-protocol.js';
import { parseProxyRequest } from './proxy-request.js';
import type { BodyText } from './read-body.js';
import { readBodyText } from './read-body.js';
import type { RequestContext } from './request-context.js';
import { upstreamURL } from './request-context.js';
import { ProxyRequestError } from './request-error.js';

/** What the read step hands on: the client's controls and its body. */
interface ReadRequest {
  readonly controls: ProxyControls;
  readonly text: string;
  readonly bytes: BodyText['bytes'];
}

/**
 * Handle one `POST` to a protocol's route, start to end.
 *
 * @example
 * app.post(protocol.route, (c) => handleProxyRequest(requestContext(config, protocol, c.req.raw)))
 */
export async function handleProxyRequest(ctx: RequestContext): Promise<Response> {
  try {
    const refused = await gate(ctx);
    if (refused) return refused;
    const read = await readRequest(ctx);
    if (read instanceof Response) return read;
    const request = await parseRequest(ctx, read.text);
    const { edits, outcome, rounds } = await planRequest(ctx, request, read.controls);
    const body = await editBody(read, edits);
    return await forward(ctx, {
      url: upstreamURL(ctx, ctx.protocol.upstreamPath),
      method: 'POST',
      body,
      outcome: { ...outcome, ms: performance.now() - ctx.arrived },
      stream: request.stream,
      ...(rounds ? { rounds } : {}),
    });
  } catch (error) {
    return refusal(ctx, error);
  }
}

/**
 * The gate: a 503 when the protocol has no upstream or the proxy no token, a 401 for a caller
 * without the token; undefined to go on.
 *
 * @example
 * const refused = await gate(ctx)
 * if (refused) return refused
 */
export async function gate(ctx: RequestContext): Promise<Response | undefined> {
  const { config, protocol, raw } = ctx;
  const { upstream } = protocol;
  if (!config.upstreams[upstream.name]) {
    return providerError(
      protocol,
      503,
      `no ${upstream.name} upstream is configured on this proxy (set ${upstream.baseURLVariable})`,
    );
  }
  const outcome = await authorize(raw, config.auth, config.token);
  if (outcome === 'not_configured')
    return providerError(protocol, 503, 'the proxy token (LOOPCTL_TOKEN) is not set on this server');
  if (outcome === 'unauthorized') {
    return providerError(
      protocol,
      401,
      'a valid proxy token is required (Authorization: Bearer <token> or x-api-key: <token>)',
      { headers: { 'www-authenticate': 'Bearer realm="loopctl"' } },
    );
  }
  return undefined;
}

/** The read step: a JSON body (a 415 else), the client's controls, the body within its budget. */
async function readRequest(ctx: RequestContext): Promise<ReadRequest | Response> {
  const { config, protocol, raw } = ctx;
  // A web page can post text/plain, a form or an untyped body without a CORS preflight.
  if (!isJsonMediaType(raw.headers.get('content-type') ?? undefined))
    return providerError(
      protocol,
      415,
      'the request body must be JSON (Content-Type: application/json or application/…+json)',
    );
  const controls = proxyControls(raw.headers, {
    names: config.selectors.names,
    selector: config.defaultSelector,
    k: config.k,
    policy: config.policy,
  });
  if (controls.explicitSelector && !config.hasEmbedder && config.selectors.isDense(controls.selector)) {
    throw new ProxyRequestError(
      400,
      `x-loopctl-selector: "${controls.selector}" needs an embedder, and none is configured on this server`,
      'x-loopctl-selector',
    );
  }
  const { text, bytes } = await readBodyText(raw, config.maxBodyBytes, config.uploadBudget);
  return { controls, text, bytes };
}

/** The parse step: the protocol's dialect over the body (a large one parsed in steps). */
async function parseRequest(ctx: RequestContext, text: string): Promise<ProxyRequest> {
  const { config, protocol } = ctx;
  const parsed = isLargeBody(text.length)
    ? await parseObjectInSteps(text, nextTurn, STEP_CHARS, config.maxJsonDepth)
    : undefined;
  const request = parseProxyRequest(protocol, text, config.toolSets.get(protocol), parsed, config.maxJsonDepth);
  await largeBodyTurn(text.length);
  const count = request.tools.length;
  if (count > config.maxTools) {
    throw new ProxyRequestError(
      400,
      `the request lists ${count} tools; this proxy takes at most ${config.maxTools} (PROXY_MAX_TOOLS)`,
      'tools',
    );
  }
  return request;
}

/** The edit step: the forwarded text as the client's text with the edits, joined (or encoded) once. */
async function editBody(read: ReadRequest, edits: readonly Edit[]): Promise<string | Uint8Array<ArrayBuffer>> {
  return isLargeBody(read.text.length)
    ? await encodeEditedInSteps(read.text, read.bytes, edits, nextTurn)
    : applyEdits(read.text, edits);
}

/**
 * A failure before the upstream answered, in the protocol's shape: the request's own fault
 * (its status), the client gone (400), else a 500 and `onError`.
 *
 * @example
 * catch (error) { return refusal(ctx, error) }
 */
export function refusal(ctx: RequestContext, error: unknown): Response {
  const { protocol, config } = ctx;
  if (error instanceof ProxyRequestError)
    return providerError(protocol, error.status, error.message, {
      ...error.extra,
      ...(error.param ? { param: error.param } : {}),
    });
  if (error instanceof JsonDepthError) return providerError(protocol, 400, error.message); // a large body's
  if (ctx.signal.aborted) return providerError(protocol, 400, 'the client closed the request');
  config.onError?.(error);
  return providerError(protocol, 500, 'the proxy failed to handle this request; see the server log');
}
