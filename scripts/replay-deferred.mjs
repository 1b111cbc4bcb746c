// Loaded-set stability, measured: bfcl_multi_turn conversations replayed through the real loop
// and the real Anthropic client against the scripted model server, one run per user turn, the
// history carried over. The scripted model calls the turn's expected tools it can see, and
// calls find_tools with the turn's prompt once when it cannot; it never sees a deferred tool
// before a search reveals it (the server enforces it). Used by scripts/eval.mjs; needs a build.
//
//   const report = await replayConversations({ tools, cases, selector, modes: ['deferred', 'find_tools'] })
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { anthropicMessagesClient, BareLoop, ToolRegistry } from '../dist/index.js';

/** The scripted model server, bundled from its TypeScript source for this Node process. */
async function scriptedServer() {
  const dir = mkdtempSync(join(tmpdir(), 'loopctl-replay-'));
  const outfile = join(dir, 'scripted-model-server.mjs');
  await build({
    entryPoints: [resolve(import.meta.dirname, '../test/support/scripted-model-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  const module = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  return module.startScriptedModelServer;
}

/** Test cases grouped by conversation (`multi_turn_base_<n>-turn<k>`), turns in order. */
export function conversationsOf(cases) {
  const byId = new Map();
  for (const item of cases) {
    const [conversation, turn] = item.id.split('-turn');
    if (!byId.has(conversation)) byId.set(conversation, []);
    byId.get(conversation).push({ ...item, turn: Number(turn) });
  }
  return [...byId.values()].map((turns) => turns.sort((a, b) => a.turn - b.turn));
}

const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Replay every conversation in each mode: `deferred` (withToolSearch({ deferred: true })) and
 * `find_tools` (today's per-turn selection widened by find_tools). Reports, per mode: requests,
 * requests whose loaded set differs from the conversation's first, requests whose `tools` array
 * differs from the previous request's (what a prompt cache loses), reveals that shrank, and the
 * share of expected calls the model could make.
 */
export async function replayConversations({ tools, cases, selector, modes = ['deferred', 'find_tools'], limit }) {
  const start = await scriptedServer();
  let state;
  const server = await start({
    keepRequests: 64,
    script: (request) => {
      state.sent.push(JSON.stringify(request.json?.tools ?? null));
      const seen = new Set(request.seenTools);
      const pending = state.expected.filter((name) => !state.called.has(name));
      const callable = pending.filter((name) => seen.has(name));
      if (callable.length > 0) {
        for (const name of callable) state.called.add(name);
        return {
          toolCalls: callable.map((name, i) => ({ id: `t${state.turn}_${state.step++}_${i}`, name, arguments: {} })),
        };
      }
      if (pending.length > 0 && !state.searched && seen.has('find_tools')) {
        state.searched = true;
        return {
          toolCalls: [{ id: `s${state.turn}_${state.step++}`, name: 'find_tools', arguments: { query: state.query } }],
        };
      }
      return { text: 'Done.' };
    },
  });
  const conversations = conversationsOf(cases).slice(0, limit);
  const report = {};
  try {
    for (const mode of modes) {
      const figures = {
        conversations: conversations.length,
        requests: 0,
        loadedChanged: 0,
        toolsChanged: 0,
        revealShrank: 0,
        expectedCalls: 0,
        reachedCalls: 0,
        searches: 0,
      };
      for (const turns of conversations) {
        const registry = new ToolRegistry();
        registry.batch((r) => {
          for (const tool of tools) r.register(tool, () => 'ok');
        });
        const client = anthropicMessagesClient({
          baseURL: server.anthropicBaseURL,
          model: 'scripted',
          retry: { maxAttempts: 1 },
        });
        const loop = new BareLoop({ client, registry, config: { maxTurns: 6 } })
          .withToolSelector(selector)
          .withToolSearch(mode === 'deferred' ? { deferred: true, k: 5 } : { k: 5 });
        let messages = [];
        let firstLoaded;
        let previousTools;
        let previousRevealed = [];
        for (const turn of turns) {
          state = {
            query: turn.query,
            expected: [...turn.expected],
            called: new Set(),
            searched: false,
            turn: turn.turn,
            step: 0,
            sent: [],
          };
          const run = loop.run([...messages, { role: 'user', content: turn.query }]);
          for await (const event of run) {
            if (event.type === 'request') {
              figures.requests += 1;
              if (event.surface) {
                firstLoaded ??= event.surface.loaded;
                if (!sameList(firstLoaded, event.surface.loaded)) figures.loadedChanged += 1;
                if (!previousRevealed.every((name) => event.surface.revealed.includes(name))) figures.revealShrank += 1;
                previousRevealed = event.surface.revealed;
              }
            }
            if (event.type === 'tool_call' && event.call.name === 'find_tools') figures.searches += 1;
            if (event.type === 'tool_call' && turn.expected.includes(event.call.name) && event.advertised)
              figures.reachedCalls += 1;
            if (event.type === 'error') throw new Error(`replay ${turn.id}: ${event.message}`);
          }
          for (const sent of state.sent) {
            if (previousTools !== undefined && sent !== previousTools) figures.toolsChanged += 1;
            previousTools = sent;
          }
          figures.expectedCalls += turn.expected.length;
          messages = (await run.result()).messages;
        }
      }
      report[mode] = figures;
    }
  } finally {
    await server.close();
  }
  return report;
}
