/**
 * Deterministic, varied test texts for the USE-lite port: tool-like requests, questions, code
 * identifiers, numbers, punctuation, whitespace oddities, non-English and >128-token texts.
 * A fixed-seed PRNG fills the templates, so every run sees the same texts.
 *
 * @example
 * const texts = generateSentences() // ~280 non-empty strings
 */

/** mulberry32: tiny seeded PRNG, enough for picking template slots. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cities = [
  'Paris',
  'New York',
  'Tokyo',
  'São Paulo',
  'Zürich',
  'Lagos',
  'Mumbai',
  'Reykjavík',
  'Berlin',
  'Austin',
];
const names = ['Alice', 'Bob', 'Dr. Chen', "O'Brien", 'María José', 'the finance team', 'Priya', 'Jean-Luc'];
const topics = [
  'the Q3 budget',
  'tomorrow’s standup',
  'invoice #4821',
  'the outage on 2024-03-07',
  'lunch',
  'the API migration',
];
const units = ['km', 'miles', 'kg', 'lbs', '°C', '°F', 'USD', 'EUR', 'GB', 'MiB'];
const terms = ['rate limiting', 'OAuth 2.0 scopes', 'vector databases', 'WebGPU adapters', 'tail latency', 'CRDTs'];

const requestTemplates: ReadonlyArray<(r: () => number) => string> = [
  (r) => `Find flights from ${pick(r, cities)} to ${pick(r, cities)} on ${1 + Math.floor(r() * 28)} May`,
  (r) => `Send an email to ${pick(r, names)} about ${pick(r, topics)}`,
  (r) => `What's the weather in ${pick(r, cities)} tomorrow?`,
  (r) => `Convert ${Math.floor(r() * 1000)} ${pick(r, units)} to ${pick(r, units)}`,
  (r) => `Create a GitHub issue titled "${pick(r, terms)} is broken"`,
  (r) => `search the docs for ${pick(r, terms)}`,
  (r) => `Schedule a meeting with ${pick(r, names)} at ${1 + Math.floor(r() * 12)}:${r() < 0.5 ? '00' : '30'} pm`,
  (r) => `remind me to call ${pick(r, names)} in ${2 + Math.floor(r() * 50)} minutes`,
  (r) => `Book a table for ${2 + Math.floor(r() * 6)} in ${pick(r, cities)} tonight`,
  (r) => `Summarise ${pick(r, topics)} in three bullet points`,
  (r) => `translate "good morning" into the language spoken in ${pick(r, cities)}`,
  (_r) => `Play some jazz in the living room`,
  (r) => `How much is ${Math.floor(r() * 500)} ${pick(r, units)} in ${pick(r, units)}?`,
  (r) => `List open pull requests mentioning ${pick(r, terms)}`,
  (r) => `Turn off the lights in ${pick(r, ['the kitchen', 'room 2B', 'the garage', 'all rooms'])}`,
];

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)] as T;
}

const questions = [
  'How old are you?',
  'The quick brown fox jumps over the lazy dog.',
  'Why is the sky blue?',
  'Who wrote Pride and Prejudice?',
  'what time is it in UTC right now',
  'Is it going to rain this weekend?',
  'Can you explain how transformers work?',
  'Where did I park the car?',
  'WHAT IS THE CAPITAL OF AUSTRALIA',
  'which tool should I use to read a PDF?',
  'Do penguins have knees?',
  'How do I reset my password?',
  'Is 97 a prime number?',
  'What does HTTP 418 mean?',
  "Isn't it a bit late for coffee?",
];

const code = [
  'get_user_by_id',
  'fetchWeatherForecast',
  'kebab-case-file-name',
  'src/adapters/use-lite.ts',
  'POST /api/v1/users/{id}/avatar',
  '{"name": "search", "arguments": {"query": "cats"}}',
  'SELECT * FROM orders WHERE total > 100;',
  'const x = await fetch(url, { method: "GET" });',
  'if (a !== b && c >= d) { return null; }',
  '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
  'https://example.com/path?query=1&lang=en#top',
  'git commit -m "fix: handle empty strings"',
  'npm run build:model -- --force',
  'os.path.join(base_dir, "models")',
  'HashMap<String, Vec<u8>>',
  'calendar.create_event',
  'tool_call_id=call_abc123',
  'x86_64-unknown-linux-gnu',
  'e.g. foo.bar.baz()',
  'README.md',
];

const numbers = [
  '10222',
  '3.14159',
  '1,000,000',
  '2024-05-17T10:30:00Z',
  '+1 (555) 010-9999',
  '$49.99',
  '12:30',
  ':30',
  '00000',
  '42',
  '0.0001',
  '1e-9',
  '99 bottles of beer',
  'Version 1.31.0-dev',
  '7 × 8 = 56',
  '50%',
  '#1',
  '2^10 = 1024',
  '-273.15 °C',
  'IPv4 192.168.0.1',
];

const punctuation = [
  '!!!',
  '...',
  '?!',
  '(a) [b] {c}',
  '"quoted" and \'single\'',
  '— em dash – en dash',
  '🙂 emoji only 🎉',
  '<s> literal tags </s>',
  'extra_token_id_1',
  ':) smile',
  ':-) nose smile',
  'a:):b',
  '://',
  '@mention #hashtag',
  '***bold*** _italic_',
  '¿Qué? ¡Sí!',
  '«guillemets»',
  '…',
  '&amp; &lt; &gt;',
  '\\n escaped',
];

const whitespace = [
  ' leading space',
  'trailing space ',
  'double  space',
  '\ttab first',
  'line one\nline two',
  'carriage\r\nreturn',
  '   ',
  'non\u00a0breaking space',
  'zero\u200bwidth',
  'ﬁne ligature ＡＢＣ full-width',
];

const nonEnglish = [
  'Quel temps fera-t-il demain à Paris ?',
  'Wie spät ist es in Berlin?',
  '¿Dónde está la estación de tren?',
  '東京の天気は？',
  '今天北京的天气怎么样？',
  'Какая погода в Москве?',
  'ما هو الطقس في القاهرة؟',
  'मुझे एक टैक्सी चाहिए',
  '서울 날씨 어때요?',
  'Πού είναι το μουσείο;',
  'Yarın İstanbul’da hava nasıl olacak?',
  'Thời tiết ở Hà Nội thế nào?',
  'Ik wil een tafel reserveren voor twee personen',
  'Czy możesz wysłać e-mail do Anny?',
  'Olá, tudo bem? Preciso de ajuda com o relatório.',
  'Hvor er nærmeste apotek?',
  'Mikä on Suomen pääkaupunki?',
  'שלום, מה שלומך?',
  'Saya ingin memesan tiket pesawat ke Bali',
  'Je voudrais convertir 100 euros en dollars',
];

const paragraph =
  'The selector embeds every tool description once, caches the vectors, and at each turn ranks the tools ' +
  'by cosine similarity to the latest user message, keeping only the few that matter so the prompt stays ' +
  'small, cheap and focused; when the conversation drifts, the ranking drifts with it, and tools that were ' +
  'dropped come back as soon as they become relevant again.';

/** Texts well over 128 tokens, so the clip at 128 positions is exercised. */
function longTexts(): string[] {
  return [
    `${paragraph} ${paragraph}`,
    `${paragraph} ${paragraph} ${paragraph}`,
    Array.from({ length: 160 }, (_, i) => `word${i}`).join(' '),
    Array.from({ length: 90 }, (_, i) => `${i * 7}`).join(', '),
    `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(12)}`,
    `${nonEnglish.join(' ')} ${nonEnglish.join(' ')}`,
    `${code.join(' ; ')}`,
    `${questions.join(' ')} ${questions.join(' ')}`,
  ];
}

/**
 * The full deterministic set (all non-empty; the empty string is tested on its own because
 * the TF.js reference drops or rejects it).
 *
 * @example
 * expect(generateSentences().length).toBeGreaterThanOrEqual(200)
 */
export function generateSentences(seed = 20240517, requests = 140): string[] {
  const r = prng(seed);
  const generated = Array.from({ length: requests }, (_, i) => {
    const template = requestTemplates[i % requestTemplates.length] as (r: () => number) => string;
    const text = template(r);
    // Vary case and trailing punctuation a little, as users do.
    const roll = r();
    if (roll < 0.1) return text.toLowerCase();
    if (roll < 0.15) return `${text}!`;
    if (roll < 0.2) return `please ${text}`;
    return text;
  });
  const all = [
    ...generated,
    ...questions,
    ...code,
    ...numbers,
    ...punctuation,
    ...whitespace,
    ...nonEnglish,
    ...longTexts(),
  ];
  return [...new Set(all)];
}
