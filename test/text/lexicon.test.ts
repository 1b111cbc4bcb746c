import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { promptTexts } from '../../src/select/multi-intent.js';
import type { SelectionContext } from '../../src/select/selector.js';
import { inferToolLinks } from '../../src/select/tool-links.js';
import { splitClauses } from '../../src/text/clauses.js';
import { english, englishLoaded } from '../../src/text/english.js';
import { englishRules } from '../../src/text/english-rules.js';
import { coversText, type Lexicon, loadLexicon, tagged } from '../../src/text/lexicon.js';
import { spellOutShorthand } from '../../src/text/shorthand.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties },
});

const TOOLS: ToolSchema[] = [
  tool('send_email', 'Send an email message to a recipient.', { to: { type: 'string' } }),
  tool('reply_to_email', 'Reply to an email.', { message: { type: 'string' } }),
  tool('create_calendar_event', 'Create an event in the calendar.', { title: { type: 'string' } }),
  tool('acknowledge_alert', 'Acknowledge an alert.', { alert: { type: 'string' } }),
  tool('get_weather', 'Current weather conditions and forecast for a city.', { city: { type: 'string' } }),
  tool('translate_text', 'Translate text into another language.', { text: { type: 'string' } }),
];

const ctx = (prompt: string): SelectionContext => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [{ role: 'user', content: prompt }],
});
const signal = () => new AbortController().signal;

describe('the English lexicon', () => {
  it('covers Latin-script text, and text without letters', () => {
    expect(coversText(englishLoaded, 'email Dana the report')).toBe(true);
    expect(coversText(englishLoaded, 'What is the weather in 東京 right now?')).toBe(true);
    expect(coversText(englishLoaded, '2 + 2 = ?')).toBe(true);
    expect(coversText(englishLoaded, '会議の議事録をチームに送って')).toBe(false);
    expect(coversText(englishLoaded, 'Отправь отчёт Дане')).toBe(false);
  });

  it('loads its rule tables once, as the value the rules read by default', async () => {
    const loaded = await loadLexicon(english);
    expect(await loadLexicon(english)).toBe(loaded);
    expect(loaded.verbs).toBe(englishLoaded.verbs);
    expect(loaded.stem('directories')).toBe(englishLoaded.stem('directory'));
  });

  it('keeps one verb table of the roles tool links read', () => {
    expect(tagged(englishRules.verbs, 'finds').has('search')).toBe(true);
    expect(tagged(englishRules.verbs, 'fetches').has('get')).toBe(true);
    for (const word of ['authenticate', 'login', 'write', 'stop', 'run', 'history', 'recent'])
      expect(englishRules.verbs[word]?.split(' ').some((tag) => tag === 'name' || tag === 'finds')).toBe(true);
    // Only the roles links read are left: no action class, no noun-verb.
    const roles = new Set(Object.values(englishRules.verbs).flatMap((tags) => tags.split(' ')));
    expect([...roles].sort()).toEqual(['fetches', 'finds', 'name']);
  });
});

describe('a prompt in a script the lexicon does not cover', () => {
  // Both prompts hold English words the rules would act on ("then" splits clauses, "ack" is
  // spelled out): with the prompt mostly in another script, none fires.
  it.each([
    ['Japanese', '会議の議事録をまとめて email で送って then カレンダーに予定を作って ack'],
    ['Russian', 'Отправь протокол встречи по email, then создай событие в календаре и ack'],
  ])('%s: skips the lexical rules and says so, and still ranks', async (_, prompt) => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const output = await selector.select(ctx(prompt), TOOLS, { signal: signal() });
    expect(output.tools.length).toBeGreaterThan(0);
    const skipped = (output.warnings ?? []).filter((warning) => warning.startsWith('lexical rules skipped'));
    expect(skipped).toEqual([
      'lexical rules skipped: the prompt is mostly in a script the english lexicon does not cover',
    ]);
    // No clause was split off, and the ranking is the one without any multi-intent rule.
    for (const reason of Object.values(output.reasons ?? {})) expect(reason.parts).not.toHaveProperty('clause');
    const plain = await new HybridSelector(countingEmbedder(), { topK: 3, multiIntent: false }).select(
      ctx(prompt),
      TOOLS,
      { signal: signal() },
    );
    expect(output.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
    for (const name of Object.keys(plain.reasons ?? {}))
      expect(output.reasons?.[name]?.score).toBeCloseTo(plain.reasons?.[name]?.score as number, 12);
  });

  it('an English prompt with the same words still meets the rules', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 3 });
    const output = await selector.select(
      ctx('Summarise the meeting notes and email them to the team, then create a calendar event'),
      TOOLS,
      { signal: signal() },
    );
    expect(output.warnings ?? []).not.toContainEqual(expect.stringMatching(/lexical rules skipped/));
    // Its clauses are ranked too: the plain "and" splits it.
    const { texts } = await promptTexts(
      'Summarise the meeting notes and email them to the team, then create a calendar event',
      {},
    );
    expect(texts.length).toBeGreaterThan(1);
  });
});

// Another language is one file: a lexicon value. This one is a sketch of German, written here.
const german: Lexicon = {
  language: 'german',
  stopwords: new Set(['der', 'die', 'das', 'und', 'bitte', 'ihm', 'ihr']),
  stem: (word) => (word.length > 4 ? word.replace(/(?:en|e|s)$/, '') : word),
  synonyms: [['schicken', 'senden']],
  phrases: [],
  rules: () => ({
    ...englishRules,
    scripts: /\p{Script=Latin}/u,
    verbs: {
      senden: 'name',
      antworten: 'name',
      erstellen: 'name',
      suche: 'finds',
      aktualisiere: 'name',
    },
    handleWords: ['nummer', 'id'],
    clauseSeparator: /[.!?]+\s+|\s*;\s*|,?\s+(?:und\s+)?(?:dann|danach)\b,?\s*/giu,
    clauseAnd: /,?\s+und\s+/giu,
    clauseLead: /^(?:und\s+)?(?:dann|danach)\b,?\s*/iu,
    shorthand: { mfg: 'mit freundlichen grüßen' },
  }),
};

describe('a second lexicon', () => {
  it('drives the rules in its own words', async () => {
    const words = await loadLexicon(german);
    expect(splitClauses('Suche das Ticket im System, dann schicke die Antwort an Dana', {}, words)).toEqual([
      'Suche das Ticket im System',
      'schicke die Antwort an Dana',
    ]);
    expect(spellOutShorthand('mfg, Dana', words)).toBe('mfg (mit freundlichen grüßen), Dana');
  });

  it('reads handles and finders in its own words for tool links', async () => {
    const tools: ToolSchema[] = [
      {
        name: 'aktualisiere_kunde',
        description: 'Aktualisiert einen Kunden.',
        parameters: { type: 'object', properties: { kunden_nummer: { type: 'string' } }, required: ['kunden_nummer'] },
      },
      tool('suche_kunden', 'Sucht Kunden nach Namen.'),
    ];
    const links = inferToolLinks(tools, { lexicon: await loadLexicon(german) }).links;
    expect(links).toEqual([expect.objectContaining({ tool: 'aktualisiere_kunde', providers: ['suche_kunden'] })]);
    expect(inferToolLinks(tools).links).toEqual([]); // "nummer" is no English handle word
  });

  it('reaches the selectors as an option', async () => {
    const keyword = new KeywordSelector({ lexicon: german });
    expect(keyword.queryWords('bitte die Datei schicken')).toEqual(['datei', 'schicken', 'senden']);
    // "dann" splits the prompt into two requests under German, not under English.
    const prompt = ctx('Suche das weather forecast in Berlin, dann schicke die email an Dana');
    const clauses = async (lexicon?: Lexicon) => {
      const output = await new HybridSelector(countingEmbedder(), { topK: 3, ...(lexicon ? { lexicon } : {}) }).select(
        prompt,
        TOOLS,
        { signal: signal() },
      );
      expect(output.warnings ?? []).not.toContainEqual(expect.stringMatching(/lexical rules skipped/));
      return (await promptTexts(prompt.latestUserMessage ?? '', { share: true }, lexicon)).texts.length - 1;
    };
    expect(await clauses(german)).toBe(2);
    expect(await clauses()).toBe(0);
  });
});
