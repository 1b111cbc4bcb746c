/**
 * What a request asks done, as one of a few action classes, and what a tool's name says it
 * does. "Email him the details" and `send_email` are both *send*; `reply_to_email` is
 * *reply*: a verb shared by many tools ("email", "task") is told apart by the action, not the
 * noun. A fixed table of English verbs, no model.
 */

import { stem } from './stem.js';
import { rawWords, splitName } from './words.js';

// Each class: the verbs that ask for it. A tool's name word in a class gives the tool that action.
const CLASSES: Readonly<Record<string, readonly string[]>> = {
  send: [
    'send',
    'email',
    'mail',
    'message',
    'text',
    'ping',
    'notify',
    'dm',
    'tell',
    'inform',
    'dispatch',
    'relay',
    'post',
    'publish',
    'announce',
    'broadcast',
    'alert',
    'contact',
    'deliver',
    'page',
  ],
  reply: ['reply', 'respond', 'answer'],
  forward: ['forward', 'fwd'],
  create: [
    'create',
    'add',
    'make',
    'new',
    'schedule',
    'book',
    'declare',
    'raise',
    'file',
    'register',
    'insert',
    'compose',
    'generate',
    'start',
    'open',
    'invite',
    'plan',
    'setup',
    'log',
    'record',
    'note',
    'submit',
    'put',
  ],
  draft: ['draft'],
  update: [
    'update',
    'change',
    'edit',
    'modify',
    'rename',
    'move',
    'reschedule',
    'set',
    'adjust',
    'push',
    'postpone',
    'delay',
    'bump',
    'extend',
    'shift',
    'correct',
    'fix',
    'patch',
    'replace',
    'mark',
    'priority',
    'prioritize',
    'prioritise',
    'tag',
    'label',
  ],
  assign: ['assign', 'reassign', 'delegate', 'hand', 'give', 'transfer', 'allocate'],
  delete: ['delete', 'remove', 'drop', 'discard', 'trash', 'erase', 'purge', 'destroy', 'clear', 'unregister'],
  cancel: ['cancel', 'abort', 'revoke', 'withdraw', 'void'],
  archive: ['archive'],
  complete: ['complete', 'finish', 'close', 'done', 'resolve', 'end', 'wrap'],
  read: [
    'read',
    'get',
    'show',
    'view',
    'display',
    'fetch',
    'retrieve',
    'see',
    'check',
    'open',
    'pull',
    'summarise',
    'summarize',
    'describe',
    'detail',
    'details',
    'inspect',
    'load',
  ],
  search: ['search', 'find', 'lookup', 'look', 'locate', 'query', 'seek', 'browse', 'filter', 'discover'],
  list: ['list', 'enumerate', 'all'],
  share: ['share', 'grant', 'permit'],
  deploy: ['deploy', 'release', 'ship', 'rollout'],
  rollback: ['rollback', 'revert', 'undo', 'restore'],
  restart: ['restart', 'reboot', 'reload', 'bounce'],
  acknowledge: ['acknowledge', 'ack'],
  escalate: ['escalate'],
  silence: ['silence', 'mute', 'snooze', 'suppress'],
  translate: ['translate'],
  convert: ['convert', 'exchange'],
  upload: ['upload', 'attach'],
  download: ['download', 'export'],
  accept: ['accept', 'approve', 'confirm', 'rsvp'],
  decline: ['decline', 'reject', 'deny', 'refuse'],
  comment: ['comment'],
  remind: ['remind', 'reminder'],
  calculate: ['calculate', 'compute', 'estimate', 'count', 'sum', 'total', 'measure'],
  buy: ['buy', 'purchase', 'order'],
  sell: ['sell'],
  pay: ['pay', 'refund', 'charge', 'invoice', 'bill'],
};

// A word that is a noun as often as a verb counts as the action only where a verb would stand:
// at the start of the request or after a word that leads into one ("please email him").
const NOUN_VERBS = new Set([
  'invite',
  'page',
  'email',
  'mail',
  'message',
  'text',
  'ping',
  'dm',
  'note',
  'log',
  'record',
  'file',
  'post',
  'alert',
  'contact',
  'book',
  'order',
  'invoice',
  'bill',
  'text',
  'detail',
  'details',
  'count',
  'sum',
  'total',
  'set',
  'list',
  'all',
  'new',
  'end',
  'plan',
  'tag',
  'label',
  'priority',
  'answer',
  'reply',
  'comment',
  'reminder',
  'release',
  'open',
  'check',
  'export',
  'exchange',
  'filter',
  'record',
  'change',
  'update',
  'patch',
  'transfer',
  'fix',
  'look',
  'hand',
  'give',
  'push',
  'move',
  'shift',
  'view',
  'display',
  'query',
  'search',
  'draft',
  'put',
  'charge',
  'refund',
  'measure',
  'load',
  'estimate',
  'restore',
  'undo',
  'attach',
  'ship',
  'delay',
  'permit',
  'grant',
]);
const LEADS = new Set([
  'please',
  'pls',
  'and',
  'then',
  'to',
  'also',
  'just',
  'quickly',
  'now',
  'can',
  'could',
  'would',
  'will',
  'you',
  'me',
  'us',
  'kindly',
  'go',
  'ahead',
  'lets',
  "let's",
  'i',
  'we',
  'need',
  'want',
  'should',
  'must',
  'try',
  'help',
  'finally',
  'first',
  'next',
  'later',
  'afterwards',
  'so',
]);
// Phrases that ask for a class in two words, tested before single words.
// An empty class stops the search: "check in" to a hotel asks for no action of the table.
const PHRASES: readonly [RegExp, string][] = [
  [/\bcheck(?:ing)?[\s-]+(?:in|out)\b/i, ''],
  [/\blog(?:ging)?[\s-]+(?:in|out|on|off)\b/i, ''],
  [/\blet\s+\S+(?:\s+\S+)?\s+know\b/i, 'send'],
  [/\broll\s*back\b/i, 'rollback'],
  [/\bwrite\s+back\b/i, 'reply'],
  [/\bset\s+up\b/i, 'create'],
  [/\bsign\s+up\b/i, 'create'],
  [/\bcall\s+off\b/i, 'cancel'],
  [/\blook\s+(?:up|for)\b/i, 'search'],
  [/\bpull\s+up\b/i, 'read'],
  [/\bmark\s+\S+(?:\s+\S+){0,3}\s+(?:as\s+)?(?:done|complete|completed|finished|closed|resolved)\b/i, 'complete'],
  [/\bclose\s+out\b/i, 'complete'],
];

const isNounVerb = (word: string): boolean => NOUN_VERBS.has(word) || NOUN_VERBS.has(stem(word));
// "emails", "tasks": a plural is a noun, never the verb of a request.
const isPlural = (word: string): boolean =>
  word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && stem(word) !== word;

const BY_WORD = new Map<string, string>();
for (const [name, words] of Object.entries(CLASSES))
  for (const word of words) if (!BY_WORD.has(stem(word))) BY_WORD.set(stem(word), name);

/**
 * The action a request asks for: a phrase ("let him know", "roll back"), else its first verb
 * of the table, where a word that is as often a noun ("email", "message") counts only where a
 * verb would stand. Undefined when none is found.
 *
 * @example
 * requestAction('email him the details') // 'send'
 * requestAction('Reply to Mark\'s email about the budget') // 'reply'
 * requestAction('how many unread emails do I have') // undefined
 */
export function requestAction(text: string): string | undefined {
  const head = typeof text === 'string' ? text.slice(0, 400) : '';
  const words = rawWords(head);
  let firstPhrase: { at: number; action: string } | undefined;
  for (const [pattern, action] of PHRASES) {
    const match = pattern.exec(head);
    if (match && (!firstPhrase || match.index < firstPhrase.at)) firstPhrase = { at: match.index, action };
  }
  // The word position of the phrase, to compare with the first verb's.
  const phraseWord = firstPhrase ? rawWords(head.slice(0, firstPhrase.at)).length : Infinity;
  for (let i = 0; i < words.length && i < phraseWord; i++) {
    const word = words[i] as string;
    const action = BY_WORD.get(stem(word));
    if (!action || isPlural(word)) continue;
    if (isNounVerb(word) && i > 0 && !LEADS.has(words[i - 1] as string)) continue;
    return action;
  }
  return firstPhrase?.action || undefined;
}

/**
 * Whether a text opens with a request of its own: its first word (after words that lead into
 * one, "please", "also") is a verb of the table, or a phrase of the table starts there ("let
 * #ops know"). "and page the on-call" does; "and dogs" does not.
 *
 * @example
 * opensWithAction('ack ALR-7710') // true
 * opensWithAction('the details') // false
 */
export function opensWithAction(text: string): boolean {
  const head = typeof text === 'string' ? text.slice(0, 200) : '';
  const words = rawWords(head);
  let at = 0;
  while (at < words.length && LEADS.has(words[at] as string)) at++;
  const first = words[at];
  if (first === undefined) return false;
  if (BY_WORD.has(stem(first)) && !isPlural(first)) return true;
  const rest = words.slice(at).join(' ');
  return PHRASES.some(([pattern, action]) => action !== '' && pattern.exec(rest)?.index === 0);
}

/**
 * The actions a tool performs, from its name and the head of its description: each name word
 * of the table, except that a word as often a noun ("email", "message", "reply") counts only
 * as the name's first word or when the name has no other verb (`reply_to_email` replies, it
 * does not send; `post_message` posts), plus the first verb of the description's first words.
 *
 * @example
 * toolActions('send_email', 'Compose and send a new email.') // Set { 'send', 'create' }
 * toolActions('reply_to_email', 'Reply to an email.') // Set { 'reply' }
 * toolActions('add_ticket_reply', 'Reply to the customer on a ticket.') // Set { 'create', 'reply' }
 */
export function toolActions(name: string, description = ''): ReadonlySet<string> {
  const words = splitName(typeof name === 'string' ? name : '').flatMap(rawWords);
  const out = new Set<string>();
  const plain = words.filter(
    (word, i) => BY_WORD.has(stem(word)) && (i === 0 || (!isNounVerb(word) && !isPlural(word))),
  );
  for (const word of plain) out.add(BY_WORD.get(stem(word)) as string);
  if (out.size === 0) for (const word of words) if (BY_WORD.has(stem(word))) out.add(BY_WORD.get(stem(word)) as string);
  // Descriptions open with what the tool does ("Reply to…", "Full-text search over…").
  const head = typeof description === 'string' ? rawWords(description.slice(0, 200)).slice(0, 3).join(' ') : '';
  const described = head ? requestAction(head) : undefined;
  if (described) out.add(described);
  return out;
}

// How a question or a wish opens: "what is…", "can you…", "I need…", "I'd like…".
const ASKS =
  /^(?:what|whats|who|whom|whose|where|wheres|when|why|how|which|is|are|am|was|were|do|does|did|can|could|will|would|should|shall|may|might|any|need|want|lets|let)\b/;
// What follows "I" or "we" in a request rather than a statement.
const WISHES = new Set(['d', 'll', 'need', 'want', 'wanna', 'would', 'must', 'should', 'have', 'will', 'could', 'can']);

/**
 * Whether a clause asks for something, as a command (see {@link opensWithAction}), a question
 * or a wish, rather than saying what the request carries ("We accept clauses 3 and 4" after
 * "Reply to Carla's email." is the reply's content, not a second request).
 *
 * @example
 * readsAsRequest('what is the weather in Paris') // true
 * readsAsRequest('We accept clauses 3 and 4') // false
 */
export function readsAsRequest(text: string): boolean {
  if (typeof text !== 'string') return false;
  if (/\?\s*$/.test(text)) return true;
  const head = rawWords(text.slice(0, 200));
  let at = 0;
  while (at < head.length && (head[at] === 'and' || head[at] === 'then' || head[at] === 'also')) at++;
  // "We accept…", "I love…": a speaker and a plain verb state something; "I need…", "we
  // should…", "I'd like…" ask.
  if (head[at] === 'i' || head[at] === 'we') return WISHES.has(head[at + 1] as string);
  return opensWithAction(head.slice(at).join(' ')) || ASKS.test(head.slice(at, at + 2).join(' '));
}
