/**
 * Optional chat panel: the real loop (BareLoop) runs in the page against any OpenAI-compatible
 * endpoint the user enters, with the selector they choose, and every turn shows what it
 * advertised. The key lives in localStorage and is sent only to that base URL (the client
 * fetches `${baseURL}/chat/completions` and nothing else). Tools run offline handlers. With
 * "learn" on, a turn whose tool calls all succeed teaches the dense selectors its prompt; the
 * examples stay in this browser's IndexedDB until "Forget learned".
 */

import type { LoopEvent, ToolRegistry } from '../src/index.js';
import { BareLoop, openAIChatClient } from '../src/index.js';
import { chatFailure } from './chat-failure.js';
import { h, ms } from './dom.js';
import type { DemoEngine, SelectorId } from './engine.js';

const STORE = {
  baseURL: 'loopctl.chat.baseURL',
  apiKey: 'loopctl.chat.apiKey',
  model: 'loopctl.chat.model',
  selector: 'loopctl.chat.selector',
  learn: 'loopctl.chat.learn',
};

/** What the panel needs from the page. */
export interface ChatDeps {
  readonly engine: DemoEngine;
  /** The registry for the current tool list (with handlers). */
  readonly registry: () => ToolRegistry;
  /** The prompt box's text, used when the chat input is empty. */
  readonly prompt: () => string;
}

/** The mounted panel. */
export interface ChatPanel {
  /** Re-read what the page has learned (the store loads with the page's first dense ranking). */
  refresh(): void;
}

/**
 * Wire the chat panel inside `root` (the `<details id="chat">` element).
 *
 * @example
 * const chat = mountChat(byId('chat'), { engine, registry: () => registry, prompt: () => promptBox.value })
 * chat.refresh() // after a selection
 */
export function mountChat(root: HTMLElement, deps: ChatDeps): ChatPanel {
  const form = root.querySelector('form') as HTMLFormElement;
  const log = root.querySelector('.chat-log') as HTMLElement;
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
  const baseURL = field('baseURL') as HTMLInputElement;
  const apiKey = field('apiKey') as HTMLInputElement;
  const model = field('model') as HTMLInputElement;
  const selector = field('selector') as HTMLSelectElement;
  const message = field('message') as HTMLInputElement;
  const send = form.querySelector('button[type=submit]') as HTMLButtonElement;
  const stop = form.querySelector('button[data-action=stop]') as HTMLButtonElement;
  const forget = form.querySelector('button[data-action=forget]') as HTMLButtonElement;
  const forgetLearned = form.querySelector('button[data-action=forget-learned]') as HTMLButtonElement;
  const learn = field('learn') as HTMLInputElement;
  const learnedNote = root.querySelector('.chat-learned') as HTMLElement;
  const showLearned = () => {
    const count = deps.engine.learnedCount;
    learnedNote.textContent =
      count === 0
        ? 'Nothing learned in this browser yet.'
        : `Learned from ${count} prompt${count === 1 ? '' : 's'} (kept in this browser only).`;
  };

  baseURL.value = localStorage.getItem(STORE.baseURL) ?? 'http://127.0.0.1:11434/v1';
  apiKey.value = localStorage.getItem(STORE.apiKey) ?? '';
  model.value = localStorage.getItem(STORE.model) ?? 'qwen3:4b';
  selector.value = localStorage.getItem(STORE.selector) ?? 'embedding';
  learn.checked = localStorage.getItem(STORE.learn) !== 'off';
  root.addEventListener('toggle', showLearned);
  showLearned();

  let running: AbortController | undefined;
  forget.addEventListener('click', () => {
    for (const key of Object.values(STORE)) localStorage.removeItem(key);
    apiKey.value = '';
    log.prepend(h('p', { class: 'chat-note' }, 'Saved settings and key removed from this browser.'));
  });
  forgetLearned.addEventListener('click', async () => {
    try {
      await deps.engine.clearLearned();
      log.prepend(h('p', { class: 'chat-note' }, 'Learned prompts removed from this browser.'));
    } catch (error) {
      log.prepend(h('p', { class: 'chat-error' }, `Could not forget: ${String(error)}`));
    }
    showLearned();
  });
  stop.addEventListener('click', () => running?.abort(new DOMException('stopped by the user', 'AbortError')));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (running) return;
    const url = baseURL.value.trim().replace(/\/+$/, '');
    if (!/^https?:\/\//.test(url)) {
      log.append(
        h('p', { class: 'chat-error' }, 'Enter a base URL starting with http:// or https:// (including /v1).'),
      );
      return;
    }
    localStorage.setItem(STORE.baseURL, url);
    localStorage.setItem(STORE.apiKey, apiKey.value);
    localStorage.setItem(STORE.model, model.value);
    localStorage.setItem(STORE.selector, selector.value);
    localStorage.setItem(STORE.learn, learn.checked ? 'on' : 'off');

    const text = message.value.trim() || deps.prompt().trim();
    if (!text) return;
    message.value = '';
    const client = openAIChatClient({
      baseURL: url,
      model: model.value.trim(),
      ...(apiKey.value ? { apiKey: apiKey.value } : {}),
    });
    const loop = new BareLoop({ client, registry: deps.registry(), config: { maxTurns: 6 } });
    const chosen = selector.value === 'none' ? undefined : deps.engine.selector(selector.value as SelectorId);
    if (chosen) loop.withAsyncToolSelector(chosen).withLearning(learn.checked);

    running = new AbortController();
    send.disabled = true;
    stop.disabled = false;
    const transcript = h('div', { class: 'chat-run' }, h('p', { class: 'chat-user' }, text));
    log.append(transcript);
    let reply: HTMLElement | undefined;
    try {
      for await (const ev of loop.run(text, { signal: running.signal })) {
        reply = renderEvent(ev, transcript, reply, (error) => chatFailure(error, url, location.origin));
        transcript.scrollIntoView({ block: 'end', behavior: 'smooth' });
      }
    } catch (error) {
      transcript.append(h('p', { class: 'chat-error' }, String(error)));
    } finally {
      running = undefined;
      send.disabled = false;
      stop.disabled = true;
      showLearned();
    }
  });
  return { refresh: showLearned };
}

/**
 * Append one loop event to the run's transcript; returns the element text deltas go into.
 * `failure` words an error event (the URL tried and what to do).
 */
function renderEvent(
  ev: LoopEvent,
  into: HTMLElement,
  reply: HTMLElement | undefined,
  failure: (error: { code: string; message: string }) => string,
): HTMLElement | undefined {
  switch (ev.type) {
    case 'selection': {
      const chips = ev.advertised.map((name) => h('span', { class: 'tool-chip' }, name));
      into.append(
        h(
          'div',
          { class: 'chat-turn' },
          h(
            'span',
            { class: 'chat-turn-label' },
            `Turn ${ev.turn} · ${ev.selector ?? 'all tools'} · ${ev.advertised.length}/${ev.registered} tools · ${ev.advertisedTokens}/${ev.registryTokens} tok · ${ms(ev.ms)}`,
          ),
          ev.fellOpen ? h('span', { class: 'warn' }, ` fell open: ${ev.fellOpen}`) : null,
          h('div', { class: 'chips' }, ...chips),
        ),
      );
      return undefined;
    }
    case 'text': {
      const target = reply ?? into.appendChild(h('p', { class: 'chat-assistant' }));
      target.textContent += ev.delta;
      return target;
    }
    case 'tool_call':
      into.append(
        h(
          'p',
          { class: 'chat-tool' },
          `→ ${ev.call.name}(${ev.call.arguments})${ev.advertised ? '' : ' (not advertised)'}`,
        ),
      );
      return undefined;
    case 'tool_result':
      into.append(
        h('p', { class: `chat-tool${ev.result.isError ? ' chat-error' : ''}` }, `← ${ev.result.content.slice(0, 240)}`),
      );
      return undefined;
    case 'warning':
      into.append(h('p', { class: 'chat-error' }, `${ev.type}: ${ev.message}`));
      return reply;
    case 'error':
      into.append(h('p', { class: 'chat-error' }, failure(ev)));
      return reply;
    case 'done':
      into.append(
        h(
          'p',
          { class: 'chat-note' },
          `${ev.stopReason} after ${ev.turns} turn(s) · ${ev.usage.inputTokens} in / ${ev.usage.outputTokens} out tokens`,
        ),
      );
      return undefined;
    default:
      return reply;
  }
}
