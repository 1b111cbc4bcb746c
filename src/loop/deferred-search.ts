/**
 * Deferred loading for one run (`withToolSearch({ deferred: true })`). The registry splits in
 * two: the *loaded* tools (the selector's pick for the conversation's opening prompt, chosen
 * once, rendered and counted) and the *deferred* rest (declared with `defer_loading` where the
 * protocol has it, kept back where it has not, reachable only through search). A deferred tool
 * a search returned is *revealed*: callable from the next request on. What was revealed is read
 * back from the conversation itself (a search result's `references`, a hosted search's
 * `tool_reference` blocks), so a resumed run recomputes the same surface without stored state.
 * Loaded in place of `tool-search.ts` when the option is on, so the core bundle does not carry it.
 */
import type { Message, ProviderContent, ToolCall, ToolResult } from '../message.js';
import type { HostedToolSearch, ModelClient } from '../model/client.js';
import { createToolNameMap } from '../model/tool-names.js';
import { nameRecord, ownEntry } from '../registry/name-record.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolSchema } from '../registry/schema.js';
import type { RunSelectionResult } from '../select/run-selection.js';
import { searchTools } from '../select/search-tools.js';
import type { AsyncToolSelector, ToolReason } from '../select/selector.js';
import {
  FIND_TOOLS,
  findToolsSchema,
  type SearchDoor,
  type SearchTurn,
  type SelectTurn,
  type SurfaceWarning,
  shadowWarning,
  ToolSearch,
  type ToolSearchOptions,
} from './tool-search.js';

export type { ToolSurface } from './tool-search.js';

/**
 * One run's deferred surface: the loaded set (selected once), what the conversation revealed,
 * the wire split, and a dispatcher that answers the search and refuses deferred tools that were
 * not revealed.
 *
 * @example
 * const deferred = new DeferredSearch({ deferred: true, k: 5 }, selector, client)
 * const turn = await deferred.turn(all, run.view(), select)
 * const request = buildRequest(turn.wireView(view), turn.wireTools, config, turn.deferral)
 */
export class DeferredSearch implements SearchDoor {
  readonly #search: ToolSearch;
  readonly #selector: AsyncToolSelector | undefined;
  /** Deferred tools are declared on the wire (else kept back, and revealed ones ride as tools). */
  readonly #native: boolean;
  readonly #hosted: HostedToolSearch | undefined;
  readonly #maxTools: number;
  readonly #said = new Set<string>();
  #pending: SurfaceWarning[] = [];
  #loaded: RunSelectionResult | undefined;
  #turns = 0;

  constructor(
    options: ToolSearchOptions,
    selector: AsyncToolSelector | undefined,
    client: Pick<ModelClient, 'toolSearch' | 'provider' | 'model'>,
  ) {
    this.#search = new ToolSearch(options, selector);
    this.#selector = selector;
    const support = client.toolSearch;
    this.#native = support?.deferLoading === true;
    this.#maxTools = support?.maxTools ?? Number.POSITIVE_INFINITY;
    if (options.hosted && !(this.#native && support?.hosted.includes(options.hosted))) {
      this.#warn(
        'tool_search',
        `the ${client.provider} client offers no hosted ${options.hosted} search; searching with ${FIND_TOOLS} instead`,
      );
    }
    this.#hosted =
      this.#native && options.hosted && support?.hosted.includes(options.hosted) ? options.hosted : undefined;
  }

  /**
   * This turn's surface. The loaded set is selected on the first call (for the conversation's
   * opening user message) and kept for the run; revealed tools are read from `conversation`.
   * A registry with its own `find_tools` turns deferral off (a plain selection, with a warning).
   */
  async turn(all: readonly ToolSchema[], conversation: readonly Message[], select: SelectTurn): Promise<SearchTurn> {
    const shadow = shadowWarning(all);
    if (shadow) {
      this.#warn(shadow.code, shadow.message);
      const selection = await select();
      return {
        selection,
        wireTools: selection.tools,
        warnings: this.#drain(),
        wireView: (view) => view,
        dispatch: (registry) => ({ registry, selection }),
      };
    }
    if (!this.#loaded) this.#loaded = await this.#selectLoaded(all, conversation, select);
    const loadedNames = new Set(this.#loaded.names);
    const registered = new Set(all.map((tool) => tool.name));
    const loaded = all.filter((tool) => loadedNames.has(tool.name));
    let rest = all.filter((tool) => !loadedNames.has(tool.name));

    // A protocol's tool limit (Anthropic: 10,000 declared tools): the loaded set first, then
    // deferred tools in registry order; the rest are kept back from the wire and the search.
    const own = this.#hosted === undefined;
    const room = this.#native ? Math.max(0, this.#maxTools - loaded.length - 1) : Number.POSITIVE_INFINITY;
    let keptBack: readonly ToolSchema[] = [];
    if (rest.length > room) {
      keptBack = rest.slice(room);
      rest = rest.slice(0, room);
      this.#warn(
        'too_many_tools',
        `${all.length} tools exceed the ${this.#maxTools} one request may declare: ${keptBack.length} deferred tools are kept back (neither sent nor searched)`,
      );
    }
    const deferrable = new Set(rest.map((tool) => tool.name));

    const revealedNames: string[] = [];
    for (const name of revealedIn(conversation, all)) {
      if (deferrable.has(name)) revealedNames.push(name);
      else if (!registered.has(name))
        this.#warn(
          `revealed_tool_removed:${name}`,
          `revealed tool "${name}" is no longer registered; it was dropped from the request`,
        );
    }
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const revealed = revealedNames.map((name) => byName.get(name) as ToolSchema);
    const searching = rest.length > revealed.length;
    const searchTool = own && searching ? [findToolsSchema()] : [];

    // What the request costs (the estimate) and what may be called: loaded ∪ revealed ∪ search.
    const counted = [...loaded, ...revealed, ...searchTool];
    const reasons = nameRecord<ToolReason>();
    for (const tool of loaded) reasons[tool.name] = ownEntry(this.#loaded.reasons, tool.name) ?? { core: true };
    for (const tool of revealed) reasons[tool.name] = { parts: { search: 1 } };
    if (searchTool.length > 0) reasons[FIND_TOOLS] = { core: true };
    const allowed = new Set(counted.map((tool) => tool.name));
    // The search ranks the whole registry, skipping what is already callable and what is kept back.
    const searchable = { all, skip: new Set([...allowed, ...keptBack.map((tool) => tool.name)]) };

    // The loaded set's own warnings (fell open, dropped fabrications) are said with the turn that chose it.
    const selection: RunSelectionResult = {
      ...this.#loaded,
      tools: counted,
      names: counted.map((tool) => tool.name),
      reasons,
      warnings: this.#turns++ === 0 ? this.#loaded.warnings : [],
    };
    // Native: the tools array is the same every request (loaded + search, then every deferred
    // tool, revealed ones included), so the prompt prefix and its cache hold; the references
    // in the conversation load what was found. Kept back: revealed tools ride as tools.
    const native = this.#native && rest.length > 0;
    return {
      selection,
      wireTools: native ? [...loaded, ...searchTool] : counted,
      deferral: native
        ? { deferredTools: rest, toolSearch: own ? { tool: FIND_TOOLS } : { hosted: this.#hosted as HostedToolSearch } }
        : {},
      surface: {
        loaded: loaded.map((tool) => tool.name),
        revealed: revealedNames,
        deferred: all.length - loaded.length - revealed.length,
      },
      warnings: this.#drain(),
      wireView: (view) => this.#clean(view, all),
      dispatch: (registry, reply) => {
        // A hosted search in the reply loaded its finds before the calls that follow them.
        const found = this.#foundIn(reply.providerContent, all);
        return {
          registry: this.#dispatcher(registry, allowed, found, searchable),
          selection: found.size > 0 ? { ...selection, names: [...selection.names, ...found] } : selection,
        };
      },
    };
  }

  #drain(): SurfaceWarning[] {
    const warnings = this.#pending;
    this.#pending = [];
    return warnings;
  }

  /**
   * What a hosted search in one reply revealed (the provider loaded those before the calls
   * that follow them in the same reply).
   */
  #foundIn(content: ProviderContent | undefined, all: readonly ToolSchema[]): ReadonlySet<string> {
    return new Set(content ? revealedIn([{ role: 'assistant', content: '', providerContent: content }], all) : []);
  }

  /**
   * The view as the wire should carry it: references to tools no longer registered taken out
   * (a protocol refuses a reference it cannot resolve). Messages that need no change keep their
   * identity, so the usage anchor still recognises its prefix.
   */
  #clean(view: readonly Message[], all: readonly ToolSchema[]): readonly Message[] {
    const registered = new Set(all.map((tool) => tool.name));
    let names: ReturnType<typeof createToolNameMap> | undefined;
    let changed = false;
    const out = view.map((message) => {
      if (message.role === 'tool' && message.references?.some((name) => !registered.has(name))) {
        changed = true;
        return { ...message, references: message.references.filter((name) => registered.has(name)) };
      }
      if (message.role === 'assistant' && message.providerContent) {
        names ??= createToolNameMap(all.map((tool) => tool.name));
        const map = names;
        const kept = keepResolvable(message.providerContent, (wire) => registered.has(map.fromWire(wire)));
        if (kept !== message.providerContent) {
          changed = true;
          return { ...message, providerContent: kept };
        }
      }
      return message;
    });
    return changed ? out : view;
  }

  /**
   * The registry as this turn's dispatch sees it: `find_tools` answered by the search (over the
   * deferred tools not yet revealed), a deferred tool that was not revealed refused (as the
   * vendors refuse it: it was never loaded), every other call by the registry. `foundInReply`
   * holds what a hosted search in the same reply revealed: the provider loaded those before the
   * calls that follow them.
   */
  #dispatcher(
    registry: Pick<ToolRegistry, 'has' | 'dispatch'>,
    allowed: ReadonlySet<string>,
    foundInReply: ReadonlySet<string>,
    searchable: { all: readonly ToolSchema[]; skip: ReadonlySet<string> },
  ): Pick<ToolRegistry, 'has' | 'dispatch'> {
    const own = this.#hosted === undefined;
    const callable = (name: string): boolean => allowed.has(name) || foundInReply.has(name);
    return {
      has: (name) => (own && name === FIND_TOOLS) || (registry.has(name) && callable(name)),
      dispatch: async (call, options) => {
        const signal = options?.signal ?? new AbortController().signal;
        if (own && call.name === FIND_TOOLS && allowed.has(FIND_TOOLS))
          return this.#search.handle(call, searchable.all, searchable.skip, signal);
        if (registry.has(call.name) && !callable(call.name)) return this.#refuse(call, own);
        return registry.dispatch(call, options);
      },
    };
  }

  #refuse(call: ToolCall, own: boolean): ToolResult {
    const how = own ? `call ${FIND_TOOLS} to load it` : 'search for it first';
    return {
      toolCallId: call.id,
      name: call.name,
      content: `tool "${call.name}" is deferred and was not loaded: ${how}`,
      isError: true,
    };
  }

  async #selectLoaded(
    all: readonly ToolSchema[],
    conversation: readonly Message[],
    select: SelectTurn,
  ): Promise<RunSelectionResult> {
    // The conversation's opening prompt, so every run of one conversation loads the same set.
    const opening = conversation.findIndex((message) => message.role === 'user');
    const prompt = opening >= 0 ? textOf(conversation[opening] as Message) : undefined;
    const selection = await select({
      latestUserMessage: prompt,
      conversation: opening >= 0 ? conversation.slice(0, opening + 1) : conversation,
    });
    if (selection.tools.length > 0 || all.length === 0 || this.#hosted === undefined) return selection;
    // Hosted search and nothing loaded: the vendors want one loaded tool besides the search.
    const [best] = prompt
      ? await searchTools(prompt, all, { ...(this.#selector ? { selector: this.#selector } : {}), k: 1 }).catch(
          () => [],
        )
      : [];
    const tool = all.find((candidate) => candidate.name === best?.name) ?? (all[0] as ToolSchema);
    this.#warn(
      'deferred_only',
      `every tool would be deferred, and a request needs one loaded tool: loaded "${tool.name}"`,
    );
    const reasons = nameRecord<ToolReason>();
    reasons[tool.name] = best ? { score: best.score } : { core: true };
    return { ...selection, tools: [tool], names: [tool.name], reasons };
  }

  #warn(key: string, message: string): void {
    if (this.#said.has(key)) return;
    this.#said.add(key);
    this.#pending.push({ code: key.split(':')[0] as string, message });
  }
}

/**
 * Every tool name a search revealed in `messages`, in order of first reveal: a search result's
 * `references`, an Anthropic hosted search's `tool_reference` blocks, a Responses
 * `tool_search_output`'s tools. Wire names are mapped back with the registry's name map.
 *
 * @example
 * revealedIn(run.messages, registry.schemas()) // ['send_email']
 */
export function revealedIn(messages: readonly Message[], all: readonly ToolSchema[]): string[] {
  const seen = new Set<string>();
  let names: ReturnType<typeof createToolNameMap> | undefined;
  for (const message of messages) {
    if (message.role === 'tool') for (const name of message.references ?? []) seen.add(name);
    else if (message.role === 'assistant' && message.providerContent) {
      names ??= createToolNameMap(all.map((tool) => tool.name));
      for (const wire of referencedIn(message.providerContent)) seen.add(names.fromWire(wire));
    }
  }
  return [...seen];
}

/** How one protocol's kept reply content names the tools a hosted search found. */
interface ReferenceReader {
  /** The wire names one item references. */
  names(item: Readonly<Record<string, unknown>>): string[];
  /** The item with references `resolvable` refuses taken out; the same object when none are. */
  keep(item: Readonly<Record<string, unknown>>, resolvable: (wireName: string) => boolean): Record<string, unknown>;
}

// Anthropic: `tool_reference` blocks in a `tool_search_tool_result` block.
const anthropicReferences: ReferenceReader = {
  names: (item) => toolReferences(item).map((reference) => String(reference.tool_name)),
  keep(item, resolvable) {
    const references = toolReferences(item);
    const kept = references.filter((reference) => resolvable(String(reference.tool_name)));
    if (kept.length === references.length) return item;
    return { ...item, content: { ...(item.content as Record<string, unknown>), tool_references: kept } };
  },
};

// OpenAI Responses: the tools of a `tool_search_output` item.
const responsesReferences: ReferenceReader = {
  names: (item) =>
    item.type === 'tool_search_output' && Array.isArray(item.tools)
      ? item.tools.flatMap((tool) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : []))
      : [],
  keep(item, resolvable) {
    if (!(item.type === 'tool_search_output' && Array.isArray(item.tools))) return item;
    const kept = item.tools.filter(
      (tool) => !(isRecord(tool) && typeof tool.name === 'string') || resolvable(tool.name),
    );
    return kept.length === item.tools.length ? item : { ...item, tools: kept };
  },
};

/** Each protocol's reader of kept content, by the protocol the content was kept in. */
const REFERENCE_READERS: Readonly<Record<ProviderContent['protocol'], ReferenceReader>> = {
  'anthropic-messages': anthropicReferences,
  'openai-responses': responsesReferences,
};

/** The wire names a reply's kept content references (hosted search results). */
function referencedIn(content: ProviderContent): string[] {
  const reader = REFERENCE_READERS[content.protocol];
  return content.items.flatMap((item) => reader.names(item));
}

/** The `tool_reference` blocks of an Anthropic `tool_search_tool_result` block. */
function toolReferences(item: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  if (item.type !== 'tool_search_tool_result' || !isRecord(item.content)) return [];
  const references = item.content.tool_references;
  return Array.isArray(references)
    ? references.filter((reference): reference is Record<string, unknown> => isRecord(reference))
    : [];
}

/** The same content with unresolvable references taken out; the same object when none are. */
function keepResolvable(content: ProviderContent, resolvable: (wireName: string) => boolean): ProviderContent {
  const reader = REFERENCE_READERS[content.protocol];
  const items = content.items.map((item) => reader.keep(item, resolvable));
  return items.some((item, i) => item !== content.items[i]) ? { ...content, items } : content;
}

function textOf(message: Message): string {
  return typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
