/**
 * The registry, prompts and helpers the real-model learning tests share (USE lite, ONNX): terse
 * operator-speak tool descriptions, plain-language prompts per tool (the first
 * `LEARNED_PER_TOOL` are learned, the rest held out), and whether the model has been built
 * (`models/` is git-ignored; `npm run build` builds it: the tests skip without it).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LearnExample } from '../../src/learn/example-memory.js';
import type { ToolSchema } from '../../src/registry/schema.js';

export const modelDir = fileURLToPath(new URL('../../models/use-lite/', import.meta.url));
export const haveModel = existsSync(`${modelDir}onnx/model.onnx`) || existsSync(`${modelDir}onnx/model_quantized.onnx`);

const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: {} },
});

// Terse, operator-speak descriptions; users ask in plain words. The gap between the two
// registers is what a map of the query vector can learn from a registry's own traffic.
export const REGISTRY: ToolSchema[] = [
  tool('sms_dispatch', 'SMS gateway: enqueue outbound MT message to MSISDN.'),
  tool('ledger_post', 'Post a journal entry to the general ledger.'),
  tool('pager_escalate', 'Escalate incident to the on-call rotation via pager.'),
  tool('dns_upsert', 'Upsert an A/CNAME record in the managed zone.'),
  tool('cdn_purge', 'Invalidate edge cache objects by path prefix.'),
  tool('iam_grant', 'Attach a role binding to a principal.'),
  tool('vm_resize', 'Change the instance type of a compute node.'),
  tool('backup_restore', 'Restore a volume from a point-in-time snapshot.'),
  tool('invoice_issue', 'Issue an AR invoice to a customer account.'),
  tool('payroll_run', 'Execute the payroll batch for the current period.'),
  tool('ticket_open', 'Open a service desk ticket in the ITSM queue.'),
  tool('geo_lookup', 'Resolve an IP address to a geographic location.'),
];

// Plain-language prompts per tool: the first ones are learned, the rest are held out.
export const PROMPTS: Record<string, string[]> = {
  sms_dispatch: [
    'text my mom that I will be home late',
    'send a text message to the delivery guy',
    'shoot a quick text to Sam saying thanks',
    'message my sister on her phone that dinner is ready',
    'text the team lead that the build is green',
    'send Jo a text about the party',
  ],
  ledger_post: [
    'record the office rent payment in the books',
    'write down this expense in our accounting books',
    'book the consulting fee as an expense',
    'add the bank charge to the accounts',
    'record the refund we paid in accounting',
    'put this purchase into the company books',
  ],
  pager_escalate: [
    'wake up whoever is on call, the site is down',
    'get the on-duty engineer to look at this outage now',
    'the database is on fire, call the person on duty',
    'alert the oncall person about the failing checkout',
    'someone needs to fix the servers right now, page them',
    'ring the engineer on duty about the crash',
  ],
  dns_upsert: [
    'point shop.example.com at the new server',
    'make the blog subdomain go to our new host',
    'change where our website address points to',
    'set up the name api.example.com for the new box',
    'hook the docs domain up to the load balancer',
    'make www go to the new ip address',
  ],
  cdn_purge: [
    'the site still shows the old logo, clear the cache',
    'people keep seeing the old homepage, refresh the cached copy',
    'flush the cached images for the product pages',
    'our css change is not showing up for visitors',
    'clear out the stale files served to users',
    'make visitors get the new version of the pages',
  ],
  iam_grant: [
    'give Priya access to the billing project',
    'let the new contractor see the storage buckets',
    'allow Ben to deploy to production',
    'grant the intern read rights on the reports',
    'let the auditors view the logs',
    'make Chen an admin of the analytics workspace',
  ],
  vm_resize: [
    'the server is too slow, give it more memory',
    'make the build machine bigger',
    'we need more cpu on the worker box',
    'shrink the staging server to save money',
    'upgrade the database machine to a larger size',
    'the app server needs more horsepower',
  ],
  backup_restore: [
    'I deleted my files yesterday, get them back from last night',
    'roll the disk back to how it was on Monday',
    'bring back the data from before the crash',
    'recover the drive from the saved copy',
    'undo the damage by going back to the morning copy of the disk',
    'get the old version of the volume back',
  ],
  invoice_issue: [
    'bill Acme for last month of work',
    'send the customer a bill for the order',
    'charge the client for the consulting hours',
    'make a bill for the Smith account',
    'we need to get paid by Globex, send them the bill',
    'create a bill for the new subscriber',
  ],
  payroll_run: [
    'pay everyone their salaries for this month',
    'make sure the staff get paid on Friday',
    'send out the wages for the team',
    'run the salaries for the employees',
    'it is payday, pay the workers',
    'process the monthly pay for all staff',
  ],
  ticket_open: [
    'my laptop will not turn on, report it to IT',
    'ask the help desk to fix the printer',
    'log a problem with the vpn for support',
    'tell IT support my email is broken',
    'file a request for a new monitor with the helpdesk',
    'report to support that the wifi keeps dropping',
  ],
  geo_lookup: [
    'where is this visitor 8.8.8.8 coming from',
    'which country is 1.2.3.4 in',
    'find the city for this ip address',
    'where in the world is this address 203.0.113.9',
    'what location does this ip belong to',
    'tell me the country of origin of this ip',
  ],
};

export const LEARNED_PER_TOOL = 3;
export const training = (): LearnExample[] =>
  Object.entries(PROMPTS).flatMap(([name, prompts]) =>
    prompts.slice(0, LEARNED_PER_TOOL).map((query) => ({ query, tools: [name] })),
  );
export const heldOut = (): Array<[string, string]> =>
  Object.entries(PROMPTS).flatMap(([name, prompts]) =>
    prompts.slice(LEARNED_PER_TOOL).map((query): [string, string] => [query, name]),
  );

export const signal = () => new AbortController().signal;
export const ctx = (prompt: string) => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [{ role: 'user' as const, content: prompt }],
});
