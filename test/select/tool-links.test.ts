import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { handleInputs, inferToolLinks, prerequisitesFor } from '../../src/select/tool-links.js';

const root = join(import.meta.dirname, '../..');
const WORKDESK = JSON.parse(readFileSync(join(root, 'test/fixtures/workdesk/tools.json'), 'utf8')) as ToolSchema[];

const tool = (
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
  required: string[] = Object.keys(properties),
): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties, required },
});
const str = (description = '') => ({ type: 'string', description });

const providersOf = (links: ReturnType<typeof inferToolLinks>, name: string, parameter?: string) =>
  links.links.find((link) => link.tool === name && (parameter === undefined || link.parameter === parameter))
    ?.providers;

describe('handleInputs', () => {
  it('finds required handles by name and by description, with the entity each identifies', () => {
    const inputs = handleInputs(
      tool('update_ticket', 'Change a ticket.', {
        ticket_id: { type: 'integer', description: 'Ticket number' },
        assignee: str('User ID of the support agent'),
        note: str('Free text'),
      }),
    );
    expect(inputs.map((input) => [input.parameter, input.entity[0]])).toEqual([
      ['ticket_id', 'ticket'],
      ['assignee', 'assigne'],
    ]);
    expect(inputs[1]?.entity).toContain('user');
  });

  it('reads a bare `id` through the tool name, and a camelCase handle', () => {
    expect(
      handleInputs(tool('update_event', 'Edit an event.', { id: str('Identifier of the thing to change') }))[0]?.entity,
    ).toContain('event');
    expect(handleInputs(tool('get_customer', 'One customer.', { customerId: str() }))[0]?.entity).toEqual(['customer']);
  });

  it('keeps optional handles apart, and ignores inputs that are not handles', () => {
    const inputs = handleInputs(
      tool('create_task', 'New task.', { title: str('Title'), project_id: str('ID of the project') }, ['title']),
    );
    expect(inputs).toEqual([expect.objectContaining({ parameter: 'project_id', optional: true })]);
    expect(handleInputs(tool('get_weather', 'Weather.', { city: str('City name') }))).toEqual([]);
  });

  it('copes with tools without a parameters schema', () => {
    for (const parameters of [
      undefined,
      null,
      {},
      { type: 'object' },
      { properties: 'nope' },
      { properties: [], required: 'x' },
    ]) {
      expect(handleInputs({ name: 'bare', description: 'x', parameters } as unknown as ToolSchema)).toEqual([]);
    }
  });
});

describe('inferToolLinks on the dev registry', () => {
  const links = inferToolLinks(WORKDESK);

  it('links each tool that needs an id to the tool that finds it', () => {
    expect(providersOf(links, 'assign_task', 'task_id')?.[0]).toBe('search_tasks');
    expect(providersOf(links, 'update_event', 'id')).toEqual(['list_events']);
    expect(providersOf(links, 'log_activity', 'customer_id')).toEqual(['find_customer']);
    expect(providersOf(links, 'rollback_deployment')).toEqual(['list_deployments']);
    expect(providersOf(links, 'share_document', 'docId')).toEqual(['search_documents']);
    expect(links.warnings).toEqual([]);
  });

  it('never links a tool that needs the same handle itself, nor tools without handles', () => {
    for (const link of links.links) {
      expect(link.providers).not.toContain(link.tool);
      expect(link.providers).not.toContain('read_email');
      expect(link.providers).not.toContain('get_customer');
    }
    expect(providersOf(links, 'send_email')).toBeUndefined();
    expect(providersOf(links, 'get_weather')).toBeUndefined();
  });

  it('a tool name in a parameter description is a link on its own', () => {
    const tools = [
      tool('cancel_thing', 'Cancel.', { ref: str('Reference of the thing (returned by fetch_all_refs)') }),
      tool('fetch_all_refs', 'All references.', {}),
    ];
    expect(providersOf(inferToolLinks(tools), 'cancel_thing', 'ref')).toEqual(['fetch_all_refs']);
    // A plain word that happens to be a tool's name is not.
    const math = [
      tool('add_to_list', 'Add to a list.', { list_id: str('the list symbol to add to') }),
      tool('add', 'Add two numbers.', { a: str(), b: str() }),
    ];
    expect(providersOf(inferToolLinks(math), 'add_to_list')).toBeUndefined();
  });
});

describe('declared links and bad input', () => {
  const tools = [
    tool('open_box', 'Open a box.', { box_id: str('ID of the box') }),
    tool('open_crate', 'Open a crate.', { crate_id: str('ID of the crate') }),
    tool('list_boxes', 'List boxes with their IDs.', {}),
  ];

  it('a declared entry replaces what is inferred for that tool, [] included', () => {
    const inferred = inferToolLinks(tools);
    expect(providersOf(inferred, 'open_box')).toEqual(['list_boxes']);
    const declared = inferToolLinks(tools, { declared: { open_box: ['open_crate'], open_crate: [] } });
    expect(declared.links).toEqual([{ tool: 'open_box', providers: ['open_crate'], source: 'declared' }]);
    expect(inferToolLinks(tools, { infer: false }).links).toEqual([]);
  });

  it('ignores declared links to unknown tools or to itself, with a warning each', () => {
    const links = inferToolLinks(tools, {
      declared: {
        open_box: ['nope', 'open_box', 'list_boxes'],
        ghost: ['open_box'],
        open_crate: 'list_boxes' as unknown as string[],
      },
    });
    expect(providersOf(links, 'open_box')).toEqual(['list_boxes']);
    expect(links.warnings.join('\n')).toMatch(/"open_box" needs "nope", which is not registered/);
    expect(links.warnings.join('\n')).toMatch(/"open_box" cannot need itself/);
    expect(links.warnings.join('\n')).toMatch(/declared links of "ghost" ignored/);
    expect(links.warnings.join('\n')).toMatch(/declared links of "open_crate" ignored: expected a list/);
  });

  it('a cycle of declared links is reported and walked once', () => {
    const links = inferToolLinks(tools, { declared: { open_box: ['open_crate'], open_crate: ['open_box'] } });
    expect(links.warnings.join('\n')).toMatch(/cycle \(open_box → open_crate → open_box\)/);
    const result = prerequisitesFor(links, {
      picked: [0],
      anchors: [0],
      budget: 8,
    });
    expect(result.extra).toEqual([1]);
    expect(result.neededBy.get(1)).toEqual(['open_box']);
    expect(result.neededBy.get(0)).toEqual(['open_crate']);
  });

  it('hundreds of candidates for one id: the best three are kept, with one warning', () => {
    const many = [
      tool('assign_order', 'Assign an order.', { order_id: str('ID of the order') }),
      ...Array.from({ length: 300 }, (_, i) =>
        tool(`search_orders_${i}`, `Search orders in region ${i}; returns order IDs.`, { query: str() }),
      ),
    ];
    const start = performance.now();
    const links = inferToolLinks(many);
    expect(performance.now() - start).toBeLessThan(5000);
    expect(providersOf(links, 'assign_order')).toHaveLength(3);
    expect(links.warnings.join('\n')).toMatch(/16 or more candidate providers \(e\.g\. assign_order\.order_id: 300\)/);
    const { extra } = prerequisitesFor(links, {
      picked: [0],
      anchors: [0],
      budget: 2,
    });
    expect(extra).toHaveLength(1);
  });

  it('a tool whose every input is an id stays within the budget', () => {
    const ids = [
      tool('link_all', 'Link things.', { task_id: str(), event_id: str(), email_id: str(), deal_id: str() }),
      tool('search_tasks', 'Search tasks; returns task IDs.', { q: str() }, []),
      tool('list_events', 'List events with their IDs.', {}),
      tool('search_email', 'Search email.', { q: str() }, []),
      tool('list_deals', 'List deals with deal IDs.', {}),
    ];
    const links = inferToolLinks(ids);
    expect(links.links).toHaveLength(4);
    const { extra } = prerequisitesFor(links, {
      picked: [0],
      anchors: [0],
      budget: 2,
    });
    expect(extra).toHaveLength(2);
  });

  it('an ID a description names only as the tool’s own input is not one it returns', () => {
    const createEvent = (description: string) =>
      tool('create_event', description, { title: str(), room_id: str('Meeting room ID to attach') }, ['title']);
    const tools = [
      tool('cancel_event', 'Cancel an event you organise.', { event_id: str() }),
      createEvent('Create a calendar event. Can reserve a meeting room by its room ID.'),
      tool('book_room', 'Book a room.', { room_id: str() }),
    ];
    const links = inferToolLinks(tools);
    // "by its room ID" is what create_event takes: no source of event ids, nor of room ids.
    expect(providersOf(links, 'cancel_event')).toBeUndefined();
    expect(providersOf(links, 'book_room')).toBeUndefined();
  });

  it('anchors take turns: each one’s first lookup comes before another’s second', () => {
    // "Share the board deck": the first anchor needs two handles, the second one; a budget of
    // two must not go to the first anchor alone.
    const tools = [
      tool('share_message', 'Share a chat message into a channel.', { message_id: str(), channel_id: str() }),
      tool('share_file', 'Share a file with people.', { file_id: str(), emails: str() }, ['file_id']),
      tool('search_messages', 'Search chat history; returns message IDs.', { q: str() }, []),
      tool('lookup_channel', 'Look up a channel by name; returns its channel ID.', { name: str() }),
      tool('search_files', 'Search files; returns file IDs.', { q: str() }, []),
    ];
    const links = inferToolLinks(tools);
    expect(links.links.map((link) => [link.tool, link.providers[0]])).toEqual([
      ['share_message', 'search_messages'],
      ['share_message', 'lookup_channel'],
      ['share_file', 'search_files'],
    ]);
    const run = (budget: number) =>
      prerequisitesFor(links, {
        picked: [0, 1],
        anchors: [0, 1],
        budget,
      }).extra.map((i) => (tools[i] as ToolSchema).name);
    expect(run(2)).toEqual(['search_messages', 'search_files']);
    expect(run(3)).toEqual(['search_messages', 'search_files', 'lookup_channel']);
    expect(run(1)).toEqual(['search_messages']);
  });
});

describe('prerequisitesFor', () => {
  it('adds the best provider of an anchor within the budget, or names one already picked', () => {
    const links = inferToolLinks(WORKDESK);
    const at = (name: string) => WORKDESK.findIndex((t) => t.name === name);
    const missing = prerequisitesFor(links, { picked: [at('assign_task')], anchors: [at('assign_task')], budget: 2 });
    expect(missing.extra).toEqual([at('search_tasks')]);
    expect(missing.neededBy.get(at('search_tasks'))).toEqual(['assign_task']);
    const picked = [at('assign_task'), at('list_my_tasks')];
    const inside = prerequisitesFor(links, { picked, anchors: [at('assign_task')], budget: 2 });
    expect(inside.extra).toEqual([]);
    expect(inside.neededBy.get(at('list_my_tasks'))).toEqual(['assign_task']);
    const none = prerequisitesFor(links, { picked: [at('assign_task')], anchors: [at('assign_task')], budget: 0 });
    expect(none.extra).toEqual([]);
  });

  it('an optional handle is reported as a link but never followed', () => {
    const tools = [
      tool('request_leave', 'Request time off.', { employee_id: str('Omit to file for yourself'), start: str() }, [
        'start',
      ]),
      tool('search_employees', 'Search the employee directory by name.', { name: str() }, []),
    ];
    const links = inferToolLinks(tools);
    expect(links.links.map((link) => [link.parameter, link.optional])).toEqual([['employee_id', true]]);
    expect(prerequisitesFor(links, { picked: [0], anchors: [0], budget: 2 }).extra).toEqual([]);
  });
});
