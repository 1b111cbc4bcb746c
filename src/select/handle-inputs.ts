/**
 * Handle inputs: the required inputs of a tool that only another tool produces (`task_id`, an
 * `email_id`, a `ticker`, "the ID of the event"), with what each identifies, read from the
 * parameter's name and description with the lexicon's handle words.
 */
import type { ToolSchema } from '../registry/schema.js';
import type { LoadedLexicon } from '../text/lexicon.js';
import { descriptionOf, headWords, identifierWords, isEntityWord, type LinkWords, linkWords } from './link-words.js';
import { toolProperties } from './tool-properties.js';

/** A required input of a tool that only another tool produces. */
export interface HandleInput {
  /** The parameter's name. */
  readonly parameter: string;
  /** What the handle identifies (stemmed words, e.g. `['task']`). */
  readonly entity: readonly string[];
  /** The handle's own words (`id`, `ticker`, `symbol`, `token`…). */
  readonly handle: readonly string[];
  /** The entity as written (for display). */
  readonly words: readonly string[];
  /** The parameter is optional: reported as a link, never followed (the model may leave it out). */
  readonly optional?: boolean;
}

function requiredNames(tool: ToolSchema): string[] {
  const required = (tool?.parameters as Record<string, unknown> | undefined)?.required;
  return Array.isArray(required)
    ? required.filter((name): name is string => typeof name === 'string').slice(0, 64)
    : [];
}

/**
 * The required inputs of a tool that are handles another tool produces, with what each
 * identifies: `task_id` → task; `id` of `update_event` → event; `ticker` described as "ticker
 * symbol of the stock" → stock; "User ID of the agent" → user, agent.
 *
 * @example
 * handleInputs({ name: 'assign_task', description: 'Assign a task.', parameters: {
 *   type: 'object', properties: { task_id: { type: 'string' }, assignee: { type: 'string' } },
 *   required: ['task_id', 'assignee'] } })
 * // [{ parameter: 'task_id', entity: ['task'], handle: ['id'] }]
 */
export function handleInputs(tool: ToolSchema, lexicon?: LoadedLexicon): HandleInput[] {
  const props = toolProperties(tool);
  if (!props) return [];
  const words = linkWords(lexicon);
  const required = new Set(requiredNames(tool));
  const out: HandleInput[] = [];
  let seen = 0;
  for (const parameter in props) {
    if (!Object.hasOwn(props, parameter)) continue;
    if (++seen > 64) break;
    const input = handleInput(tool, parameter, descriptionOf(props[parameter]), words);
    if (input) out.push(required.has(parameter) ? input : { ...input, optional: true });
  }
  return out;
}

// One parameter as a handle input, or undefined when it is none.
function handleInput(tool: ToolSchema, parameter: string, text: string, words: LinkWords): HandleInput | undefined {
  const { handles, stem } = words;
  const nameWords = identifierWords(parameter);
  const description = headWords(text);
  const namedHandle = nameWords.some((word) => handles.has(word));
  // "(returned by list_refs)", "from getSession": the description points at the producing tool.
  const pointer = words.pointer.test(text);
  if (!namedHandle && !pointer && !words.handleText.test(text)) return undefined;
  const handle = [...new Set([...nameWords, ...description].filter((word) => handles.has(word)))];
  if (handle.length === 0 && !pointer) return undefined;
  const entity = new Map<string, string>();
  const add = (word: string) => {
    if (entity.size < 6 && !entity.has(stem(word))) entity.set(stem(word), word);
  };
  for (const word of nameWords) if (isEntityWord(word, words)) add(word);
  // The words beside a handle word in the description: "User ID", "ID of the task".
  for (let i = 0; i < description.length; i++) {
    if (!handles.has(description[i] as string)) continue;
    const before = description[i - 1];
    if (before && isEntityWord(before, words)) {
      add(before);
      const further = description[i - 2];
      if (further && isEntityWord(further, words)) add(further);
    }
    let j = i + 1;
    while (j < description.length && j <= i + 4 && words.glue.has(description[j] as string)) j++;
    const after = description[j];
    if (j > i + 1 && after && isEntityWord(after, words)) add(after);
  }
  // A bare `id` or `ticker` says little: the tool's own name says what it is about (`update_event` → event).
  if (nameWords.every((word) => handles.has(word) || !isEntityWord(word, words)))
    for (const word of identifierWords(tool.name)) if (isEntityWord(word, words)) add(word);
  if (entity.size === 0 && !pointer && handle.every((word) => words.bare.has(word))) return undefined;
  return {
    parameter,
    entity: [...entity.keys()],
    words: [...entity.values()],
    handle,
  };
}
