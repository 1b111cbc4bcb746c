/**
 * Selection by judgment: one small, non-streaming model call per turn names the tools the
 * next step needs. The call carries tool names with one-line summaries (never the schemas,
 * which would spend the tokens selection saves), the run prompt and a bounded excerpt of the
 * recent conversation. Every failure falls open to the full surface, with the cause.
 */
import type { Message } from '../message.js';
import { messageText } from '../message.js';
import type { ModelClient, ModelRequest, ModelResponse } from '../model/client.js';
import { createToolNameMap } from '../model/tool-names.js';
import type { BudgetLimits } from '../limits/budget.js';
import { BudgetGate } from '../limits/budget.js';
import { raceAbort } from '../limits/race-abort.js';
import type { ToolSchema } from '../registry/schema.js';
import { withCore } from './apply-selection.js';
import type { AsyncSelectOptions, AsyncToolSelector, SelectionContext, SelectorOutput, ToolReason } from './selector.js';
import { errorMessage } from '../describe-error.js';

/** Each conversation excerpt in the rewrite prompt is capped at this many UTF-8 bytes (the spec's figure). */
export const REWRITE_EXCERPT_BYTES = 400;

/**
 * The run prompt is the query itself, so it gets more room than an excerpt, but still a cap:
 * a pasted file must not turn a small selection call into a large one.
 */
const PROMPT_BYTES = 2_000;
/** A tool's one-line summary: its first sentence, capped. */
const SUMMARY_BYTES = 160;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_TOKENS = 256;
const DEFAULT_RECENT_MESSAGES = 4;

// Fixed text, independent of the options, so a provider's prompt cache can reuse it.
const INSTRUCTIONS = [
  'You choose which tools an assistant should be offered for its next step.',
  'Reply with only a JSON array of tool names copied exactly from the list, for example ["first_tool", "second_tool"].',
  'Include every tool the next step might need; when unsure, include it.',
  'Reply [] only if the next step needs no tool at all.',
].join(' ');

/** Options for {@link RewritingSelector}. */
export interface RewritingSelectorOptions {
  /** The selector's own deadline per call; past it the turn falls open. Default 10,000 ms. */
  timeoutMs?: number;
  /**
   * Limits on the selector's own spending within one run: `maxTokens` (reported input plus
   * output tokens of its calls), `maxWallClockMs` (time spent waiting on its calls) and
   * `maxTurns` (calls made). After a hard crossing it refuses further calls for the run.
   */
  budget?: BudgetLimits;
  /** Honour an answer that names no tool ("[]", "none") with an empty selection. Default false: fall open. */
  allowEmpty?: boolean;
  /** Tools unioned into every non-empty selection (they are in the fail-open surface anyway). */
  coreTools?: readonly string[];
  /** The answer's token cap. Default 256. */
  maxTokens?: number;
  /** Recent conversation messages excerpted into the prompt. Default 4. */
  recentMessages?: number;
}

/**
 * What an answer said, read tolerantly: the registered names it named (`names`), an
 * intentional "no tool" (`empty`), or nothing usable (`none`). `unknown` lists names the
 * answer gave explicitly (in a JSON list) that the registry does not hold.
 */
export type ToolAnswer =
  | { readonly kind: 'names'; readonly names: readonly string[]; readonly unknown: readonly string[] }
  | { readonly kind: 'empty' }
  | { readonly kind: 'none'; readonly unknown: readonly string[] };

interface Settings {
  readonly timeoutMs: number;
  readonly budget: Readonly<BudgetLimits>;
  readonly allowEmpty: boolean;
  readonly coreTools: readonly string[];
  readonly maxTokens: number;
  readonly recentMessages: number;
}

/**
 * One run's budget: a gate whose clock is the time spent waiting on rewrite calls, so
 * `maxWallClockMs` bounds the selector's own waiting, not the run's total duration.
 */
class RunBudget {
  spentMs = 0;
  readonly gate: BudgetGate;

  constructor(limits: Readonly<BudgetLimits>) {
    // Whole milliseconds, as the loop's own gate reports them.
    this.gate = new BudgetGate(limits, () => Math.round(this.spentMs));
  }
}

/**
 * An {@link AsyncToolSelector} that asks a (small, cheap) model which tools this turn needs.
 * One non-streaming call per turn, `temperature: 0`, no tools on that call. The answer is read
 * tolerantly (a JSON array or object, a bullet or numbered list, comma-separated names,
 * names in prose, code fences) but only exact registered names are accepted (or the
 * wire-safe form of a registered name, e.g. `math_factorial` for `math.factorial`, when it
 * maps back unambiguously). The named tools are advertised in registry order.
 *
 * Fails open to the full surface, with `fellOpen` naming the cause, on a transport or HTTP
 * error, the selector's own timeout, a budget refusal, or an answer naming no registered
 * tool. An answer naming no tool on purpose ("[]", "none") is an empty selection only with
 * `allowEmpty`; otherwise it falls open too. Aborting the caller's signal rejects with the
 * signal's reason (never a fall-open).
 *
 * Budget scope: one gate per run. A context with `turn === 1` starts a run; later turns find
 * their run's gate by the identity of `ctx.conversation[0]` (the loop hands every turn of a
 * run the same first message object), falling back to the most recent run's gate.
 *
 * @example
 * const picker = openAIChatClient({ model: 'qwen3:1.7b' })
 * const selector = new RewritingSelector(picker)
 *   .withTimeout(5_000)
 *   .withBudget({ maxTokens: 20_000 })
 *   .withCoreTools(['read_file'])
 * const loop = new BareLoop({ client: openAIChatClient({ model: 'qwen3:32b' }), registry })
 *   .withAsyncToolSelector(selector)
 */
export class RewritingSelector implements AsyncToolSelector {
  readonly name = 'rewriting';
  readonly client: ModelClient;
  readonly #settings: Settings;
  readonly #core: ReadonlySet<string>;
  readonly #runs = new WeakMap<object, RunBudget>();
  #latest: RunBudget | undefined;

  constructor(client: ModelClient, options: RewritingSelectorOptions = {}) {
    const settings: Settings = {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      budget: { ...options.budget },
      allowEmpty: options.allowEmpty ?? false,
      coreTools: [...(options.coreTools ?? [])],
      maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      recentMessages: options.recentMessages ?? DEFAULT_RECENT_MESSAGES,
    };
    if (!(Number.isFinite(settings.timeoutMs) && settings.timeoutMs > 0)) {
      throw new RangeError(`timeoutMs must be a positive number, got ${settings.timeoutMs}`);
    }
    if (!(Number.isInteger(settings.maxTokens) && settings.maxTokens > 0)) {
      throw new RangeError(`maxTokens must be a positive integer, got ${settings.maxTokens}`);
    }
    if (!(Number.isInteger(settings.recentMessages) && settings.recentMessages >= 0)) {
      throw new RangeError(`recentMessages must be a non-negative integer, got ${settings.recentMessages}`);
    }
    // Validate the limits now (the gate throws on a bad one), not on the first turn.
    new BudgetGate(settings.budget);
    this.client = client;
    this.#settings = settings;
    this.#core = new Set(settings.coreTools);
  }

  /** The selector's own deadline per call, in milliseconds. */
  get timeoutMs(): number {
    return this.#settings.timeoutMs;
  }

  /** The per-run limits on the selector's own calls. */
  get budget(): Readonly<BudgetLimits> {
    return this.#settings.budget;
  }

  /** Whether an intentional "no tool" answer yields an empty selection. */
  get allowEmpty(): boolean {
    return this.#settings.allowEmpty;
  }

  /** The core tool names. */
  get coreTools(): readonly string[] {
    return this.#settings.coreTools;
  }

  /**
   * A copy whose calls give up after `ms` (the turn then falls open).
   *
   * @example
   * const quick = selector.withTimeout(3_000)
   */
  withTimeout(ms: number): RewritingSelector {
    return this.#derive({ timeoutMs: ms });
  }

  /**
   * A copy that stops calling for the rest of a run once its calls cross a limit.
   *
   * @example
   * const capped = selector.withBudget({ maxTokens: 10_000, maxWallClockMs: 30_000 })
   */
  withBudget(limits: BudgetLimits): RewritingSelector {
    return this.#derive({ budget: { ...limits } });
  }

  /**
   * A copy that honours an answer naming no tool with an empty selection.
   *
   * @example
   * const chatty = selector.withAllowEmpty() // "[]" → the request carries no tools
   */
  withAllowEmpty(allow = true): RewritingSelector {
    return this.#derive({ allowEmpty: allow });
  }

  /**
   * A copy that unions these tools into every non-empty selection.
   *
   * @example
   * const withBasics = selector.withCoreTools(['read_file', 'write_file'])
   */
  withCoreTools(names: readonly string[]): RewritingSelector {
    return this.#derive({ coreTools: [...this.#settings.coreTools, ...names] });
  }

  /**
   * The tools to advertise this turn, registry order.
   *
   * @example
   * const tools = await selector.select(ctx, registry.schemas(), { signal })
   */
  async select(ctx: SelectionContext, all: readonly ToolSchema[], options?: AsyncSelectOptions): Promise<readonly ToolSchema[]> {
    return (await this.selectDetailed(ctx, all, options)).tools;
  }

  /**
   * The tools to advertise this turn (registry order), or the full surface with `fellOpen`
   * naming why. Rejects only when `options.signal` aborts, with its reason.
   *
   * @example
   * const { tools, fellOpen, warnings } = await selector.selectDetailed(ctx, all, { signal })
   */
  async selectDetailed(ctx: SelectionContext, all: readonly ToolSchema[], options?: AsyncSelectOptions): Promise<SelectorOutput> {
    const signal = options?.signal;
    signal?.throwIfAborted();
    if (all.length === 0) return { tools: [] };

    const prompt = buildRewritePrompt(ctx, all, this.#settings.recentMessages);
    if (prompt === undefined) return this.#failOpen(all, 'no prompt to select for (the run has no opening prompt or conversation)');

    const run = this.#budgetFor(ctx);
    const refusal = run.gate.admit();
    if (refusal) return this.#failOpen(all, refusal.message);

    const request: ModelRequest = {
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: prompt },
      ],
      tools: [],
      maxTokens: this.#settings.maxTokens,
      temperature: 0,
      stream: false,
    };
    const started = performance.now();
    let outcome: CallOutcome;
    try {
      outcome = await completeWithin(this.client, request, this.#settings.timeoutMs, signal);
    } finally {
      // Timed-out and failed calls spent wall-clock too.
      run.spentMs += performance.now() - started;
    }
    if (!outcome.ok) return this.#failOpen(all, outcome.reason);
    run.gate.record(outcome.reply.usage);
    return this.#fromAnswer(outcome.reply, all);
  }

  #fromAnswer(reply: ModelResponse, all: readonly ToolSchema[]): SelectorOutput {
    const answer = parseToolAnswer(reply.text, all.map((tool) => tool.name));
    if (answer.kind === 'empty') {
      if (this.#settings.allowEmpty) return { tools: [] };
      return this.#failOpen(all, 'the answer selected no tool, and empty selections are not allowed (allowEmpty is off)');
    }
    if (answer.kind === 'none') {
      const cut = reply.finishReason === 'length' ? ' (the answer was cut off at maxTokens)' : '';
      const reason =
        answer.unknown.length > 0
          ? `the answer named no registered tool (it named ${answer.unknown.map((name) => JSON.stringify(name)).join(', ')})`
          : reply.text.trim() === ''
            ? 'the answer was empty'
            : `the answer named no tool: ${JSON.stringify(truncateUtf8(reply.text.trim(), 120))}`;
      return this.#failOpen(all, reason + cut);
    }

    const picked = new Set(answer.names);
    const chosen = all.filter((tool) => picked.has(tool.name));
    const reasons = reasonsRecord();
    for (const tool of all) if (this.#core.has(tool.name) && !picked.has(tool.name)) reasons[tool.name] = { core: true };
    const warnings =
      answer.unknown.length > 0 ? [`the rewrite named tools not in the registry, ignored: ${answer.unknown.join(', ')}`] : [];
    return { tools: withCore(chosen, all, this.#core), reasons, ...(warnings.length ? { warnings } : {}) };
  }

  #failOpen(all: readonly ToolSchema[], reason: string): SelectorOutput {
    const reasons = reasonsRecord();
    for (const tool of all) if (this.#core.has(tool.name)) reasons[tool.name] = { core: true };
    return { tools: all, fellOpen: reason, reasons };
  }

  // A turn-1 context starts a run; later turns find it by their first message's identity.
  #budgetFor(ctx: SelectionContext): RunBudget {
    const key: Message | undefined = ctx.conversation[0];
    if (ctx.turn > 1) {
      const known = (key && this.#runs.get(key)) ?? this.#latest;
      if (known) return known;
    }
    const budget = new RunBudget(this.#settings.budget);
    if (key) this.#runs.set(key, budget);
    this.#latest = budget;
    return budget;
  }

  #derive(changes: Partial<Settings>): RewritingSelector {
    return new RewritingSelector(this.client, { ...this.#settings, ...changes });
  }
}

type CallOutcome = { readonly ok: true; readonly reply: ModelResponse } | { readonly ok: false; readonly reason: string };

/**
 * One call under the selector's deadline and the caller's signal. The deadline and the
 * caller's abort are different events: a deadline is a failure to fall open on; the
 * caller's abort is the run going away, so it rejects with the caller's reason.
 */
async function completeWithin(
  client: ModelClient,
  request: ModelRequest,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<CallOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`rewrite call timed out after ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  try {
    // `then` turns a client's synchronous throw into a rejection; the race settles even
    // when a client ignores its signal.
    const pending = Promise.resolve().then(() => client.complete(request, { signal: controller.signal }));
    return { ok: true, reply: await raceAbort(pending, controller.signal) };
  } catch (error) {
    if (outer?.aborted) throw outer.reason;
    if (timedOut) return { ok: false, reason: `rewrite call timed out after ${timeoutMs} ms` };
    return { ok: false, reason: `rewrite call failed: ${errorMessage(error)}` };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

/**
 * The user message of the rewrite call: the tool list (names and one-line summaries), the
 * run prompt, and excerpts of the recent conversation. Undefined when there is nothing to
 * select for (no prompt and no conversation).
 *
 * @example
 * buildRewritePrompt({ turn: 1, latestUserMessage: 'Weather in Oslo?', conversation: [] }, tools, 4)
 * // 'Tools:\n- get_weather: Current weather for a city.\n\nTask:\nWeather in Oslo?\n\n…'
 */
export function buildRewritePrompt(
  ctx: SelectionContext,
  all: readonly ToolSchema[],
  recentMessages: number = DEFAULT_RECENT_MESSAGES,
): string | undefined {
  const task = oneLine(ctx.latestUserMessage ?? '');
  const recent = recentExcerpts(ctx.conversation, ctx.latestUserMessage, recentMessages);
  if (task === '' && recent.length === 0) return undefined;

  const lines = ['Tools:'];
  for (const tool of all) {
    const summary = toolSummary(tool.description);
    lines.push(summary ? `- ${tool.name}: ${summary}` : `- ${tool.name}`);
  }
  if (task !== '') lines.push('', 'Task:', excerpt(task, PROMPT_BYTES));
  if (recent.length > 0) lines.push('', 'Recent conversation (oldest first):', ...recent);
  lines.push('', 'Which tools does the next step need? Reply with a JSON array of names from the list.');
  return lines.join('\n');
}

/**
 * A tool's one-line summary: the first sentence of its description, whitespace collapsed,
 * capped at 160 bytes.
 *
 * @example
 * toolSummary('Current weather for a city. Uses the met.no API.') // 'Current weather for a city.'
 */
export function toolSummary(description: string | undefined): string {
  const text = oneLine(description ?? '');
  const end = /[.!?](?=\s|$)/.exec(text);
  return excerpt(end ? text.slice(0, end.index + 1) : text, SUMMARY_BYTES);
}

/** The last `count` messages (system messages and the run prompt itself left out), one line each, capped. */
function recentExcerpts(conversation: readonly Message[], prompt: string | undefined, count: number): string[] {
  if (count === 0) return [];
  const promptLine = oneLine(prompt ?? '');
  const picked: Message[] = [];
  for (let i = conversation.length - 1; i >= 0 && picked.length < count; i--) {
    const message = conversation[i] as Message;
    if (message.role === 'system') continue;
    // The prompt already has its own section; repeating it would only spend tokens.
    if (message.role === 'user' && oneLine(messageText(message)) === promptLine) continue;
    picked.push(message);
  }
  return picked.reverse().map((message) => excerpt(renderMessage(message), REWRITE_EXCERPT_BYTES));
}

function renderMessage(message: Message): string {
  const text = oneLine(messageText(message));
  switch (message.role) {
    case 'assistant': {
      const calls = message.toolCalls?.map((call) => call.name) ?? [];
      const called = calls.length > 0 ? `[called ${calls.join(', ')}]` : '';
      return `assistant: ${[called, text].filter(Boolean).join(' ')}`;
    }
    case 'tool':
      return `tool ${message.name}${message.isError ? ' (error)' : ''}: ${text}`;
    default:
      return `${message.role}: ${text}`;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` within `maxBytes` of UTF-8, marked with an ellipsis (inside the cap) when cut. */
function excerpt(text: string, maxBytes: number): string {
  if (truncateUtf8(text, maxBytes).length === text.length) return text;
  return `${truncateUtf8(text, maxBytes - 3)}…`;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut on a code-point
 * boundary (a surrogate pair is never split; a lone surrogate counts as the 3-byte U+FFFD
 * it encodes to).
 *
 * @example
 * truncateUtf8('héllo', 2)  // 'h'  ('é' takes 2 bytes and would not fit)
 * truncateUtf8('a😀b', 5)   // 'a😀' (1 + 4 bytes)
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const limit = Math.floor(maxBytes);
  if (!(limit > 0)) return '';
  // Every UTF-16 code unit encodes to at most 3 bytes: short strings need no scan.
  if (text.length * 3 <= limit) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Size(char.codePointAt(0) as number);
    if (bytes + size > limit) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

function utf8Size(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

// ---------------------------------------------------------------------------------------
// Reading the answer

/** Object fields that carry the list, most specific first. */
const LIST_FIELDS = ['tools', 'tool_names', 'toolNames', 'selected_tools', 'selectedTools', 'selected', 'selection', 'names', 'tool', 'name'];
/** Characters that join parts of a longer identifier (`a.b`, `a-b`, `a/b`, `a:b`). */
const JOINERS = new Set(['.', '-', '/', ':']);
const NAME_CHAR = /[\p{L}\p{N}_]/u;
const SAYS_NONE = /^(?:none|nothing|n\/a|no tools?(?: (?:is|are))?(?: (?:needed|required|necessary))?)[\s.!]*$|\bno tools? (?:is |are )?(?:needed|required|necessary)\b/i;

/**
 * Read a selection answer against the registered `known` names. Tolerant of format (a JSON
 * array, a JSON object with a list field, bullets, numbers, commas, prose, code fences,
 * `<think>` blocks) and strict about names: only exact (case-sensitive) registered names
 * count, or a registered name's wire-safe form when it maps back unambiguously. A name
 * inside a longer identifier (`search` in `search_docs`, `math` in `math.factorial`) does
 * not count.
 *
 * @example
 * parseToolAnswer('```json\n["get_weather"]\n```', ['get_weather', 'send_email'])
 * // { kind: 'names', names: ['get_weather'], unknown: [] }
 * parseToolAnswer('[]', ['get_weather'])            // { kind: 'empty' }
 * parseToolAnswer('Sure, happy to help!', ['get_weather']) // { kind: 'none', unknown: [] }
 */
export function parseToolAnswer(answer: string, known: readonly string[]): ToolAnswer {
  const text = cleanAnswer(answer);
  if (text === '') return { kind: 'none', unknown: [] };
  const resolver = nameResolver(known);

  // A list's "none" (`["none"]`) is the model saying no tool, not a tool it invented.
  const listed = jsonNames(text)
    ?.map((candidate) => candidate.trim())
    .filter((candidate) => candidate !== '' && (resolver.resolve(candidate) !== undefined || !saysNone(candidate)));
  let unknown: string[] = [];
  if (listed !== undefined) {
    const names: string[] = [];
    for (const candidate of listed) {
      const name = resolver.resolve(candidate);
      if (name !== undefined) names.push(name);
      else unknown.push(candidate);
    }
    unknown = [...new Set(unknown)];
    if (names.length > 0) return { kind: 'names', names: [...new Set(names)], unknown };
    if (listed.length === 0) return { kind: 'empty' };
    // A list of nothing registered: still look for exact names in the rest of the text.
  }

  const scanned = resolver.scan(text);
  if (scanned.length > 0) return { kind: 'names', names: scanned, unknown };
  if (listed === undefined && saysNone(text)) return { kind: 'empty' };
  return { kind: 'none', unknown };
}

function saysNone(text: string): boolean {
  return SAYS_NONE.test(text.replace(/[`*_"']/g, '').trim());
}

/** Drop reasoning blocks and code-fence markers (keeping the fenced content). */
function cleanAnswer(answer: string): string {
  return answer
    .replace(/<think>[\s\S]*?<\/think>/gi, ' ')
    .replace(/^\s*```[^\n]*$/gm, '')
    .trim();
}

interface NameResolver {
  /** The registered name a candidate denotes, if any. */
  resolve(candidate: string): string | undefined;
  /** Registered names found standing alone in `text`, first occurrence order. */
  scan(text: string): string[];
}

function nameResolver(known: readonly string[]): NameResolver {
  const registered = new Set(known);
  const wire = createToolNameMap(known);
  // Wire forms that differ from the registered name: the small model may echo what it has
  // seen on the wire (`math_factorial`) instead of the registered `math.factorial`.
  const aliases = new Map<string, string>();
  for (const name of registered) {
    const form = wire.toWire(name);
    if (form !== name && !registered.has(form)) aliases.set(form, name);
  }
  const resolve = (candidate: string): string | undefined =>
    registered.has(candidate) ? candidate : aliases.get(candidate);

  return {
    resolve,
    scan(text) {
      const found: { name: string; at: number }[] = [];
      const spellings: [string, string][] = [...[...registered].map((name): [string, string] => [name, name]), ...aliases];
      for (const [spelling, name] of spellings) {
        const at = standaloneIndex(text, spelling);
        if (at >= 0) found.push({ name, at });
      }
      found.sort((a, b) => a.at - b.at);
      return [...new Set(found.map((entry) => entry.name))];
    },
  };
}

/** The first index where `name` stands alone: not glued to name characters or joined into a longer identifier. */
function standaloneIndex(text: string, name: string): number {
  if (name === '') return -1;
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1];
    const after = text[at + name.length];
    const beforeOk = before === undefined || (!NAME_CHAR.test(before) && !(JOINERS.has(before) && isNameChar(text[at - 2])));
    const afterOk = after === undefined || (!NAME_CHAR.test(after) && !(JOINERS.has(after) && isNameChar(text[at + name.length + 1])));
    if (beforeOk && afterOk) return at;
  }
  return -1;
}

function isNameChar(char: string | undefined): boolean {
  return char !== undefined && NAME_CHAR.test(char);
}

/**
 * The names a JSON answer lists, or undefined when the answer holds no JSON list. The whole
 * text is tried first, then each bracketed span in order (models like to wrap JSON in prose).
 */
function jsonNames(text: string): string[] | undefined {
  const whole = tryJson(text);
  if (whole.ok) return namesIn(whole.value);
  let tries = 0;
  for (let start = findOpen(text, 0); start >= 0 && tries < 8; start = findOpen(text, start + 1), tries++) {
    const end = closingIndex(text, start);
    if (end < 0) continue;
    const span = tryJson(text.slice(start, end + 1));
    if (span.ok) {
      const names = namesIn(span.value);
      if (names !== undefined) return names;
    }
  }
  return undefined;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function findOpen(text: string, from: number): number {
  const square = text.indexOf('[', from);
  const curly = text.indexOf('{', from);
  if (square < 0) return curly;
  if (curly < 0) return square;
  return Math.min(square, curly);
}

/** The index of the bracket closing the one at `start`, skipping JSON strings; -1 if none. */
function closingIndex(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') depth++;
    else if (char === ']' || char === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Strings a JSON value lists as names: an array's strings (or its objects' `name`), an object's list field. */
function namesIn(value: unknown, depth = 0): string[] | undefined {
  if (depth > 3) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) {
    const names: string[] = [];
    for (const item of value) {
      if (typeof item === 'string') names.push(item);
      else if (item !== null && typeof item === 'object') names.push(...(namesIn(item, depth + 1) ?? []));
    }
    return names;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const field of LIST_FIELDS) {
    if (field in record) {
      const names = namesIn(record[field], depth + 1);
      if (names !== undefined) return names;
    }
  }
  // No known field: the first array value is the likeliest list.
  const list = Object.values(record).find(Array.isArray);
  return list === undefined ? undefined : namesIn(list, depth + 1);
}

// No prototype: a tool named `__proto__` must not turn into a prototype assignment.
function reasonsRecord(): Record<string, ToolReason> {
  return Object.create(null) as Record<string, ToolReason>;
}

