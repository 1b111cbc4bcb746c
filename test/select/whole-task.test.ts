import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { toolNeedsOf, withToolNeeds } from '../../src/registry/tool-needs.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { runSelection } from '../../src/select/run-selection.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { prerequisites } from '../../src/select/whole-task.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const root = join(import.meta.dirname, '../..');
const WORKDESK = JSON.parse(readFileSync(join(root, 'test/fixtures/workdesk/tools.json'), 'utf8')) as ToolSchema[];
const ctx = (prompt: string): SelectionContext => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [{ role: 'user', content: prompt }],
});
const signal = () => new AbortController().signal;
const select = (selector: HybridSelector, prompt: string, tools: readonly ToolSchema[] = WORKDESK) =>
  selector.select(ctx(prompt), tools, { signal: signal() });
const names = (output: { tools: readonly ToolSchema[] }) => output.tools.map((tool) => tool.name);

describe('whole-task selection in the hybrid', () => {
  it('a picked tool that needs an id has a lookup advertised, saying who needs it', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const prompt = 'Reassign the onboarding tasks to Tom';
    const output = await select(selector, prompt);
    expect(names(output)).toContain('assign_task');
    const lookups = (reasons: typeof output.reasons) =>
      Object.keys(reasons ?? {}).filter((name) => reasons?.[name]?.neededBy?.includes('assign_task'));
    expect(lookups(output.reasons).length).toBeGreaterThan(0);
    expect(output.tools.length).toBeLessThanOrEqual(3 + 2);
    const plain = await select(new HybridSelector(countingEmbedder(), { topK: 3, links: false }), prompt);
    expect(lookups(plain.reasons)).toEqual([]);
    expect(plain.tools).toHaveLength(3);
  });

  it('a budget of 0 adds nothing; a provider already picked costs nothing', async () => {
    const none = await select(
      new HybridSelector(countingEmbedder(), { topK: 3, links: { budget: 0 } }),
      'Reassign the onboarding tasks to Tom',
    );
    expect(none.tools).toHaveLength(3);
    const wide = await select(
      new HybridSelector(countingEmbedder(), { topK: 16 }),
      'Reassign the onboarding tasks to Tom',
    );
    expect(wide.tools).toHaveLength(16);
    expect(wide.reasons?.search_tasks?.neededBy).toEqual(expect.arrayContaining(['assign_task']));
    expect(wide.reasons?.search_tasks?.prerequisite).toBeUndefined();
  });

  it('declared needs come from the registry and correct an inference', async () => {
    const registry = new ToolRegistry();
    registry.registerMany(
      WORKDESK.map((schema) => ({
        schema,
        handler: () => 'ok',
        ...(schema.name === 'reply_to_email' ? { needs: ['list_my_tasks'] } : {}),
      })),
    );
    expect(toolNeedsOf(registry.schemas())).toEqual({ reply_to_email: ['list_my_tasks'] });
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const output = await select(selector, 'Reply to the email from Mark', registry.schemas());
    expect(names(output)).toContain('list_my_tasks');
    expect(names(output)).not.toContain('search_inbox');
    const { links } = await selector.toolLinks(registry.schemas());
    expect(links.find((link) => link.tool === 'reply_to_email')).toEqual({
      tool: 'reply_to_email',
      providers: ['list_my_tasks'],
      source: 'declared',
    });
    // The option wins over the list's own, per tool.
    const corrected = new HybridSelector(countingEmbedder(), { topK: 3, links: { declared: { reply_to_email: [] } } });
    expect(names(await select(corrected, 'Reply to the email from Mark', registry.schemas()))).not.toContain(
      'list_my_tasks',
    );
  });

  it('warns once per registry list for what it ignored, and ignores an unknown declared tool', async () => {
    const tools = withToolNeeds([...WORKDESK], { reply_to_email: ['search_mailbox'] });
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const first = await runSelection(selector, ctx('Reply to the email from Mark'), tools, { signal: signal() });
    expect(first.warnings.join('\n')).toMatch(
      /"reply_to_email" needs "search_mailbox", which is not registered; ignored/,
    );
    expect(first.names).not.toContain('search_mailbox');
    const second = await runSelection(selector, ctx('Reply to the email from Mark'), tools, { signal: signal() });
    expect(second.warnings).toEqual([]);
  });

  it('follows links on the lexical half alone when the embedder is down', async () => {
    const embedder = countingEmbedder();
    embedder.behaviour = () => 'reject';
    const output = await select(new HybridSelector(embedder, { topK: 3 }), 'Reassign the onboarding tasks to Tom');
    expect(output.fellOpen).toBeUndefined();
    expect(names(output)).toContain('search_tasks');
  });

  it('tools without a parameters schema and a registry of cycles rank without a loop or a crash', async () => {
    const bare = [
      { name: 'ping', description: 'Ping the server.' },
      {
        name: 'open_box',
        description: 'Open a box.',
        parameters: { type: 'object', properties: { box_id: { type: 'string' } }, required: ['box_id'] },
      },
      {
        name: 'open_crate',
        description: 'Open a crate.',
        parameters: { type: 'object', properties: { crate_id: { type: 'string' } }, required: ['crate_id'] },
      },
    ] as unknown as ToolSchema[];
    const tools = withToolNeeds(bare, { open_box: ['open_crate'], open_crate: ['open_box'] });
    const output = await select(new HybridSelector(countingEmbedder(), { topK: 1 }), 'open the box', tools);
    expect(names(output).sort()).toEqual(['open_box', 'open_crate']);
    expect(output.warnings?.join('\n')).toMatch(/cycle \(open_box → open_crate → open_box\)/);
  });

  it('registration rejects needs that are not a list of names; changing needs changes the generation', () => {
    const registry = new ToolRegistry();
    const schema = WORKDESK[0] as ToolSchema;
    expect(() => registry.register(schema, () => 'ok', { needs: 'search_tasks' as unknown as string[] })).toThrow(
      /needs must be a list of tool names/,
    );
    registry.register(schema, () => 'ok');
    const before = registry.generation;
    const list = registry.schemas();
    registry.register(schema, () => 'ok', { replace: true });
    expect(registry.generation).toBe(before);
    registry.register(schema, () => 'ok', { replace: true, needs: ['x'] });
    expect(registry.generation).toBe(before + 1);
    expect(registry.schemas()).not.toBe(list);
    expect(registry.schemas()[0]).toBe(list[0]);
  });
});

describe('prerequisites: which picks are anchors', () => {
  const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolSchema => ({
    name,
    description,
    parameters: { type: 'object', properties, required: Object.keys(properties) },
  });
  const id = { type: 'string' };
  const all = [
    tool('acknowledge_incident', 'Acknowledge an incident.', { incident_id: id }),
    tool('resolve_incident', 'Resolve an incident.', { incident_id: id }),
    tool('list_incidents', 'List open incidents.'),
    tool('share_document', 'Share a document with people or a channel.', { document_id: id, channel: id }),
    tool('search_documents', 'Search documents by title.', { query: id }),
  ];
  const source = (anchors?: { count?: number; margin?: number }) => ({
    options: { budget: 2, ...(anchors ? { anchors } : {}) },
    cache: new WeakMap(),
    dense: {},
  });
  const turn = {
    all,
    picked: [0, 1, 2, 3],
    fused: Float64Array.of(0.95, 0.9, 0.85, 0.82, 0.3),
    query: 'Share the incident postmortem doc in #eng',
    intents: [],
    denseOk: false,
    signal: undefined,
  };

  it("a budget the best picks leave unspent serves the next pick's lookup", async () => {
    // The incident tools' lookup (list_incidents) is picked already; share_document is fourth.
    const needed = await prerequisites(source(), { ...turn, warnings: [] });
    expect(needed?.extra).toEqual([4]);
    expect(needed?.neededBy.get(4)).toEqual(['share_document']);
    // Three anchors, as before: the fourth pick's lookup is left out.
    const three = await prerequisites(source({ count: 3, margin: 0.15 }), { ...turn, warnings: [] });
    expect(three?.extra).toEqual([]);
  });

  it('a several-part prompt advertises the tool just below the k-th pick; a one-part prompt does not', async () => {
    const notify = tool('notify_channel', 'Post a notice to the team channel.');
    const fused = Float64Array.of(0.95, 0.9, 0.85, 0.82, 0.3, 0.8);
    const twoParts = {
      ...turn,
      all: [...all, notify],
      fused,
      query: 'Share the incident postmortem doc with the team and resolve the incident for the payments team',
    };
    const needed = await prerequisites(source(), { ...twoParts, warnings: [] });
    expect(needed?.extra).toEqual([4, 5]);
    expect([...(needed?.near ?? [])]).toEqual([5]);
    const onePart = await prerequisites(source(), { ...twoParts, query: turn.query, warnings: [] });
    expect(onePart?.extra).toEqual([4]);
    // Below the margin (0.03 of the top score under the k-th) it is no near pick.
    const far = await prerequisites(source(), {
      ...twoParts,
      fused: Float64Array.of(0.95, 0.9, 0.85, 0.82, 0.3, 0.7),
      warnings: [],
    });
    expect(far?.extra).toEqual([4]);
    // Links off (a budget of 0) leaves no budget for it either.
    const off = await prerequisites({ ...source(), options: { budget: 0 } }, { ...twoParts, warnings: [] });
    expect(off?.extra ?? []).toEqual([]);
  });

  it('a pick far below the top score is no anchor', async () => {
    const far = Float64Array.of(0.95, 0.9, 0.85, 0.6, 0.3);
    const needed = await prerequisites(source(), { ...turn, fused: far, warnings: [] });
    expect(needed?.extra).toEqual([]);
  });
});
