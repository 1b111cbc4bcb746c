/**
 * A 150-tool surface the size real clients send (IDEs and agent frameworks with several MCP
 * servers mounted): the 67 demo tools plus 83 SaaS-integration tools, service × action, each
 * with its own description and JSON Schema. Deterministic, so tests and benchmarks agree.
 *
 * @example
 * const tools = wideToolSet() // 150 ToolSchema, unique names
 * openAITools(tools)[0] // { type: 'function', function: { name, description, parameters } }
 */

import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const SERVICES: readonly [id: string, label: string, thing: string, things: string][] = [
  ['jira', 'Jira', 'issue', 'issues in a Jira project'],
  ['linear', 'Linear', 'ticket', 'tickets in a Linear team'],
  ['notion', 'Notion', 'page', 'pages in a Notion workspace'],
  ['confluence', 'Confluence', 'wiki page', 'wiki pages in a Confluence space'],
  ['stripe', 'Stripe', 'invoice', 'invoices of a Stripe customer'],
  ['shopify', 'Shopify', 'product', 'products in a Shopify store'],
  ['salesforce', 'Salesforce', 'opportunity', 'sales opportunities in Salesforce'],
  ['hubspot', 'HubSpot', 'contact', 'CRM contacts in HubSpot'],
  ['zendesk', 'Zendesk', 'support ticket', 'customer support tickets in Zendesk'],
  ['pagerduty', 'PagerDuty', 'incident', 'on-call incidents in PagerDuty'],
  ['datadog', 'Datadog', 'monitor', 'alerting monitors in Datadog'],
  ['sentry', 'Sentry', 'error event', 'application error events in Sentry'],
  ['figma', 'Figma', 'design file', 'design files in a Figma team'],
  ['airtable', 'Airtable', 'record', 'records in an Airtable base'],
  ['twilio', 'Twilio', 'SMS message', 'SMS messages sent through Twilio'],
  ['spotify', 'Spotify', 'playlist', 'playlists in a Spotify account'],
  ['dropbox', 'Dropbox', 'shared file', 'shared files in a Dropbox folder'],
];

const ACTIONS: readonly [verb: string, describe: (label: string, thing: string, things: string) => string][] = [
  ['list', (_label, _thing, things) => `List ${things}, newest first, with optional filters.`],
  ['get', (label, thing) => `Get one ${label} ${thing} by its id, with all fields.`],
  ['create', (label, thing) => `Create a new ${label} ${thing} from a title and details.`],
  ['update', (label, thing) => `Update fields of an existing ${label} ${thing}.`],
  ['delete', (label, thing) => `Delete a ${label} ${thing} permanently by id.`],
];

function integrationTool(
  service: string,
  label: string,
  thing: string,
  things: string,
  verb: string,
  text: string,
): ToolSchema {
  const id = { type: 'string', description: `The ${label} ${thing} id` };
  const properties: Record<string, unknown> =
    verb === 'list'
      ? {
          query: { type: 'string', description: `Filter ${things}` },
          limit: { type: 'integer', minimum: 1, maximum: 100 },
        }
      : verb === 'create'
        ? { title: { type: 'string', description: `Title of the ${thing}` }, details: { type: 'string' } }
        : verb === 'update'
          ? { id, fields: { type: 'object', description: 'Fields to change', additionalProperties: true } }
          : { id };
  const required = verb === 'list' ? [] : verb === 'create' ? ['title'] : ['id'];
  return {
    name: `${service}_${verb}_${thing.replace(/\s+/g, '_')}`,
    description: text,
    parameters: { type: 'object', properties, required, additionalProperties: false },
  };
}

/** The 150 tools: demo tools first, then the integrations. */
export function wideToolSet(): ToolSchema[] {
  const tools: ToolSchema[] = [...DEMO_TOOLS];
  for (const [service, label, thing, things] of SERVICES) {
    for (const [verb, describe] of ACTIONS) {
      if (tools.length >= 150) break;
      tools.push(integrationTool(service, label, thing, things, verb, describe(label, thing, things)));
    }
  }
  return tools;
}

/** OpenAI Chat Completions `tools` entries. */
export function openAITools(
  tools: readonly ToolSchema[],
): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Anthropic Messages `tools` entries. */
export function anthropicTools(
  tools: readonly ToolSchema[],
): { name: string; description: string; input_schema: Record<string, unknown> }[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
}
