/**
 * Workplace shorthand spelled out beside itself ("Ack ALR-7710" → "Ack (acknowledge)
 * ALR-7710"), so that the lexical index meets the word a tool's name uses and the encoder meets
 * a word it knows. The short form stays: a registry that says "PTO" still matches it. A fixed
 * table of common English shorthand, not learned from any registry.
 */

// Short form (lowercase) → what it stands for.
const SHORTHAND: Readonly<Record<string, string>> = {
  ack: 'acknowledge',
  acked: 'acknowledged',
  dm: 'direct message',
  dms: 'direct messages',
  pto: 'paid time off',
  msg: 'message',
  msgs: 'messages',
  mtg: 'meeting',
  appt: 'appointment',
  db: 'database',
  repo: 'repository',
  repos: 'repositories',
  config: 'configuration',
  prod: 'production',
  dept: 'department',
  acct: 'account',
  qty: 'quantity',
  info: 'information',
  pwd: 'password',
  addr: 'address',
  org: 'organization',
  mgr: 'manager',
  vm: 'virtual machine',
  k8s: 'kubernetes',
  tmrw: 'tomorrow',
  eod: 'end of day',
  hrs: 'hours',
  mins: 'minutes',
};

// A word on its own: not part of an address, a host name, a path or a file name
// ("info@acme.com", "db-replica-2", "docs/config.yaml").
const PATTERN = new RegExp(
  `(?<![\\p{L}\\p{N}_@./-])(?:${Object.keys(SHORTHAND).join('|')})(?![\\p{L}\\p{N}_@/-]|\\.[\\p{L}\\p{N}])`,
  'giu',
);

// "#support-leads": a chat channel, as workplace chat writes one (not "#4415", a number).
const CHANNEL = /(?<![\p{L}\p{N}_&/#])#\p{L}[\p{L}\p{N}_-]*/gu;

/**
 * The text with each shorthand word, and each chat channel ("#ops"), followed by what it stands
 * for, in parentheses; the text itself when it has none.
 *
 * @example
 * spellOutShorthand('DM priya that the build is green') // 'DM (direct message) priya that the build is green'
 * spellOutShorthand('convert 10 dollars') // 'convert 10 dollars'
 */
export function spellOutShorthand(text: string): string {
  if (typeof text !== 'string') return '';
  return text
    .replace(PATTERN, (word) => `${word} (${SHORTHAND[word.toLowerCase()]})`)
    .replace(CHANNEL, (name) => `${name} (channel)`);
}
