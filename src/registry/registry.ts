import { errorMessage } from '../describe-error.js';
import type { ToolCall, ToolResult } from '../message.js';
import { nameRecord } from './name-record.js';
import type { ToolSchema } from './schema.js';
import { stableStringify } from './schema.js';
import type { ToolDefinition } from './tool-definition.js';
import { toToolSchema } from './tool-definition.js';
import { withToolNeeds } from './tool-needs.js';
import type { ArgumentValidator } from './validate.js';

/** What a handler receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled; pass it to fetches and long work. */
  readonly signal: AbortSignal;
  /** The call being served. */
  readonly call: ToolCall;
}

/**
 * Runs a tool. Return a string (sent as is) or any JSON value (sent as JSON). Throwing is
 * fine: the registry turns it into an error result.
 */
// biome-ignore lint/suspicious/noExplicitAny: the default lets a handler destructure its validated arguments without a cast
export type ToolHandler<Args = any> = (args: Args, context: ToolContext) => unknown;

/** A schema and the handler that serves it. */
export interface ToolEntry {
  readonly schema: ToolSchema;
  readonly handler: ToolHandler;
  /** Tools this one needs first (see {@link RegisterOptions.needs}). */
  readonly needs?: readonly string[];
}

/** Options for {@link ToolRegistry.register}. */
export interface RegisterOptions {
  /** Replace an existing tool of the same name (keeping its position) instead of failing. */
  replace?: boolean;
  /**
   * Tools this one needs first (best first): where the input it cannot get from a prompt comes
   * from, e.g. `['search_tasks']` for an `assign_task` that takes a `task_id`. Selectors that
   * follow links (the hybrid) use these instead of what they infer for this tool; `[]` says it
   * needs none. Names not registered when a selection runs are ignored with a warning.
   */
  needs?: readonly string[] | undefined;
}

/** Options for {@link ToolRegistry.dispatch}. */
export interface DispatchOptions {
  signal?: AbortSignal;
}

interface Slot {
  schema: ToolSchema;
  handler: ToolHandler;
  digest: string;
  schemaDigest: string;
  needs: readonly string[] | undefined;
  validator?: ArgumentValidator;
}

/**
 * Every tool the loop knows: the registered surface. Dispatch and unknown-name checks read
 * it; selectors narrow `schemas()` to the advertised surface each turn.
 *
 * `generation` changes whenever the ordered list of (name, description, parameters) changes, or
 * a tool's declared `needs`, and only then, so caches keyed on it (corpus vectors) survive no-op re-registrations.
 *
 * @example
 * const registry = new ToolRegistry()
 * registry.register(
 *   { name: 'get_weather', description: 'Current weather for a city.',
 *     parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
 *   ({ city }) => `Sunny in ${city}`,
 * )
 * await registry.dispatch({ id: '1', name: 'get_weather', arguments: '{"city":"Oslo"}' })
 * // { toolCallId: '1', name: 'get_weather', content: 'Sunny in Oslo', isError: false }
 */
export class ToolRegistry {
  #slots = new Map<string, Slot>();
  #schemas: readonly ToolSchema[] | undefined = [];
  #digests: readonly string[] = [];
  #generation = 0;
  #listeners = new Set<(generation: number) => void>();
  #batchDepth = 0;

  /**
   * Register one tool, in loopctl's shape or a provider's (OpenAI `{ type: 'function', function }`,
   * Anthropic `input_schema`, MCP `inputSchema`; see {@link ToolDefinition}). A duplicate name is
   * an error unless `replace` is set; so is a name outside `TOOL_NAME_RULE` (the error says it).
   */
  register(schema: ToolDefinition, handler: ToolHandler, options: RegisterOptions = {}): this {
    this.#put(toToolSchema(schema), handler, options);
    this.#changed();
    return this;
  }

  #put(schema: ToolSchema, handler: ToolHandler, options: RegisterOptions): void {
    // Start loading the validator now, so the first dispatch usually finds it (and stays synchronous).
    if (!validateModule) loadValidator().catch(() => undefined); // a failed load is reported by the dispatch that needs it
    assertHandler(schema, handler);
    if (this.#slots.has(schema.name) && !options.replace) {
      throw new Error(`tool "${schema.name}" is already registered (pass { replace: true } to replace it)`);
    }
    const previous = this.#slots.get(schema.name);
    // A private frozen copy: mutating the caller's object later cannot change what is
    // advertised or validated behind the generation's back.
    const frozen: ToolSchema = Object.freeze({
      name: schema.name,
      description: schema.description,
      parameters: deepFreeze(structuredClone(schema.parameters)),
    });
    const needs = options.needs === undefined ? undefined : assertNeeds(schema.name, options.needs);
    const schemaDigest = digestOf(frozen);
    // Needs are part of the digest: changing them publishes a new list (a new generation).
    const digest = needs ? schemaDigest + stableStringify(needs) : schemaDigest;
    // A no-op replacement keeps the old schema object, so caches keyed on identity survive.
    const kept = previous?.schemaDigest === schemaDigest ? previous.schema : frozen;
    this.#slots.set(schema.name, {
      schema: kept,
      handler,
      digest: previous?.digest === digest ? previous.digest : digest,
      schemaDigest,
      needs,
    });
  }

  /** Register many tools at once (any {@link ToolDefinition} shape); all entries are checked before any is added. */
  registerMany(
    entries: Iterable<{
      readonly schema: ToolDefinition;
      readonly handler: ToolHandler;
      readonly needs?: readonly string[];
    }>,
    options: RegisterOptions = {},
  ): this {
    const list = [...entries].map(({ schema, handler, needs }) => ({ schema: toToolSchema(schema), handler, needs }));
    const seen = new Set<string>();
    for (const { schema, handler, needs } of list) {
      assertHandler(schema, handler);
      if (needs !== undefined) assertNeeds(schema.name, needs);
      if (seen.has(schema.name)) throw new Error(`tool "${schema.name}" appears twice in one registerMany call`);
      seen.add(schema.name);
      if (this.#slots.has(schema.name) && !options.replace) {
        throw new Error(`tool "${schema.name}" is already registered (pass { replace: true } to replace it)`);
      }
    }
    for (const { schema, handler, needs } of list) this.#put(schema, handler, { replace: true, needs });
    this.#changed();
    return this;
  }

  /** Replace a registered tool's schema and handler, keeping its position. */
  replace(schema: ToolDefinition, handler: ToolHandler): this {
    const tool = toToolSchema(schema);
    if (!this.#slots.has(tool.name)) throw new Error(`tool "${tool.name}" is not registered`);
    return this.register(tool, handler, { replace: true });
  }

  /** Remove a tool. Returns whether it was there. */
  unregister(name: string): boolean {
    const removed = this.#slots.delete(name);
    if (removed) this.#changed();
    return removed;
  }

  /**
   * Apply several changes as one. Inside `fn`, register, replace and unregister freely; the
   * generation changes at most once, after `fn` returns, so a selector re-embeds one new
   * corpus instead of one per step. If `fn` throws, every change it made is rolled back and
   * the error is rethrown. `fn` must be synchronous: awaiting inside it would let a turn see
   * a half-applied surface. Until the batch ends, `schemas()` and `generation` show the
   * published surface; `has`, `get`, `size` and `dispatch` see each change as it is made. Batches
   * nest; the outermost one publishes.
   *
   * @example
   * registry.batch((r) => {
   *   r.unregister('github__star_repository')
   *   r.replace(editedSearchCode, searchCodeHandler)
   *   r.register(listDiscussions, listDiscussionsHandler)
   * }) // one generation change
   */
  batch<T>(fn: (registry: this) => T): T {
    const slots = new Map(this.#slots);
    // Cached now, so schemas() keeps serving the published list until the batch publishes.
    const schemas = this.schemas();
    this.#batchDepth += 1;
    let result: T;
    try {
      result = fn(this);
      if (isThenable(result)) throw new TypeError('registry.batch(fn): fn must be synchronous (it returned a promise)');
    } catch (error) {
      // Slots are replaced, never edited (bar a cached validator), so the old map is the old surface.
      this.#slots = slots;
      this.#schemas = schemas;
      throw error;
    } finally {
      this.#batchDepth -= 1;
    }
    this.#changed();
    return result;
  }

  has(name: string): boolean {
    return this.#slots.has(name);
  }

  get(name: string): ToolSchema | undefined {
    return this.#slots.get(name)?.schema;
  }

  get size(): number {
    return this.#slots.size;
  }

  /**
   * Every registered schema, in registration order. The same array is returned until the
   * registry changes, so callers may memoise on its identity.
   */
  schemas(): readonly ToolSchema[] {
    if (this.#schemas === undefined) {
      const slots = [...this.#slots.values()];
      this.#schemas = Object.freeze(slots.map((slot) => slot.schema));
      // Declared needs travel with the published list (read them back with toolNeedsOf).
      const needs = nameRecord<readonly string[]>();
      for (const slot of slots) if (slot.needs) needs[slot.schema.name] = slot.needs;
      if (Object.keys(needs).length > 0) withToolNeeds(this.#schemas, needs);
    }
    return this.#schemas;
  }

  /** Changes whenever the ordered list of (name, description, parameters, declared needs) changes, and only then. */
  get generation(): number {
    return this.#generation;
  }

  /** Be told when the generation changes. Returns an unsubscribe function. */
  onChange(listener: (generation: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Run a call. Never throws for a model's mistake: an unknown name, arguments that are not
   * JSON or fail the tool's schema (checked before the handler runs), and a throwing handler
   * all come back as error results the model can read.
   */
  async dispatch(call: ToolCall, options: DispatchOptions = {}): Promise<ToolResult> {
    const fail = (content: string): ToolResult => ({ toolCallId: call.id, name: call.name, content, isError: true });
    const slot = this.#slots.get(call.name);
    if (!slot) return fail(`unknown tool "${call.name}"`);

    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return fail(`invalid arguments for "${call.name}": not valid JSON (${errorMessage(error)})`);
    }
    // Synchronous once the validator is loaded, so a handler starts within this call.
    const problem = validateModule ? checkArgumentsNow(validateModule, slot, args) : await checkArguments(slot, args);
    if (problem) return fail(`invalid arguments for "${call.name}": ${problem}`);

    const signal = options.signal ?? new AbortController().signal;
    try {
      signal.throwIfAborted();
      const value = await slot.handler(args, { signal, call });
      return { toolCallId: call.id, name: call.name, content: renderResult(value), isError: false };
    } catch (error) {
      if (signal.aborted) return fail(`tool "${call.name}" was cancelled`);
      return fail(`tool "${call.name}" failed: ${errorMessage(error)}`);
    }
  }

  #changed(): void {
    // Inside a batch the outermost batch publishes once, comparing against the last published list.
    if (this.#batchDepth > 0) return;
    // Unchanged slots keep their digest string, so this is a pointer comparison per tool.
    const digests = [...this.#slots.values()].map((slot) => slot.digest);
    if (digests.length === this.#digests.length && digests.every((d, i) => d === this.#digests[i])) return;
    this.#schemas = undefined;
    this.#digests = digests;
    this.#generation += 1;
    for (const listener of this.#listeners) listener(this.#generation);
  }
}

function assertHandler(schema: ToolSchema, handler: unknown): void {
  if (typeof handler !== 'function') throw new TypeError(`tool "${schema.name}": handler must be a function`);
}

// The JSON Schema validator is a chunk of its own, out of the core's first load. The module is
// cached, never the promise: on Workers a promise made while serving one request cannot be
// awaited by another, while a fresh `import()` of a loaded module settles anywhere.
type ValidateModule = typeof import('./validate.js');
let validateModule: ValidateModule | undefined;

/**
 * Hand the registry the validator module up front, for hosts that import it statically anyway
 * (the HTTP app dispatches tools on every run, so it carries the validator from the start).
 * @internal
 */
export function provideValidator(module: ValidateModule): void {
  validateModule ??= module;
}

async function loadValidator(): Promise<ValidateModule> {
  validateModule ??= await import('./validate.js');
  return validateModule;
}

/**
 * What is wrong with a call's arguments, or undefined when they pass the tool's schema. A
 * schema the validator cannot use (an unresolved `$ref`, a bad `pattern`) is reported the
 * same way instead of throwing, so dispatch keeps its never-throws promise.
 */
async function checkArguments(slot: Slot, args: unknown): Promise<string | undefined> {
  let module: ValidateModule;
  try {
    module = await loadValidator();
  } catch (error) {
    return `the argument validator could not load (${errorMessage(error)})`;
  }
  return checkArgumentsNow(module, slot, args);
}

function checkArgumentsNow(module: ValidateModule, slot: Slot, args: unknown): string | undefined {
  try {
    slot.validator ??= module.compileValidator(slot.schema.parameters);
    const issues = slot.validator(args);
    return issues.length > 0 ? module.describeIssues(issues) : undefined;
  } catch (error) {
    return `the tool's parameters schema cannot be checked (${errorMessage(error)})`;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function digestOf(schema: ToolSchema): string {
  return stableStringify([schema.name, schema.description, schema.parameters]);
}

function assertNeeds(name: string, needs: unknown): readonly string[] {
  if (!Array.isArray(needs) || needs.some((item) => typeof item !== 'string' || item === '')) {
    throw new TypeError(`tool "${name}": needs must be a list of tool names`);
  }
  return Object.freeze([...new Set(needs as string[])]);
}

function renderResult(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}

function isThenable(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
