/**
 * The public tool-retrieval data the tuned encoder is trained on: each source's repository,
 * the commit read, its licence, and how its files become registries of tools and cases
 * (`{ query, expected: [tool name] }`). Files are read with `git show COMMIT:PATH` from a clone
 * of each repository (scripts/train/build-data.mjs --mirrors DIR), so the commit pins the data.
 *
 * Reserved for evaluation and never read here: Seal-Tools (fairyshine/Seal-Tools) and the test
 * splits of ../shared/eval (only their dev splits are added, by build-data.mjs).
 */

/** Minimal RFC 4180 CSV (quoted fields may hold commas, quotes and newlines). */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

const clean = (s) =>
  String(s ?? '')
    .replace(/\s+/g, ' ')
    .trim();

/** APIBench's instruction text: the part after "###Instruction:" (or 'Instruction': …) up to the output. */
function apibenchInstruction(code) {
  const m =
    /###Instruction:\s*([\s\S]*?)\s*###Output/.exec(code) ?? /'Instruction':\s*([\s\S]*?),\s*'Output'/.exec(code);
  return m ? clean(m[1]) : '';
}

/** Gorilla APIBench: one registry per hub (the api docs), cases from the instruction files. */
function apibench(hub, apiFile, caseFiles) {
  return {
    registry: `apibench_${hub}`,
    async read(show) {
      const tools = new Map();
      const add = (api) => {
        const key = clean(api.api_call);
        if (!key || tools.has(key)) return tools.get(key)?.name;
        const description = clean(
          [api.functionality, api.description ?? api.meta_data?.description].filter(Boolean).join('. '),
        );
        let name = clean(api.api_name) || key;
        if ([...tools.values()].some((t) => t.name === name)) name = `${name} ${tools.size}`;
        tools.set(key, { name, description });
        return name;
      };
      for (const line of (await show(apiFile)).split('\n')) if (line.trim()) add(JSON.parse(line));
      const cases = [];
      for (const file of caseFiles) {
        for (const line of (await show(file)).split('\n')) {
          if (!line.trim()) continue;
          const item = JSON.parse(line);
          const query = apibenchInstruction(item.code);
          const name = add(item.api_data);
          if (query && name) cases.push({ query, expected: [name] });
        }
      }
      return { tools: [...tools.values()], cases };
    },
  };
}

const APIZOO_FILES = [
  'GoogleFormsAPI.json',
  'Weaviate_API.json',
  'aryanvichare.json',
  'danielgeorge.json',
  'felixzhu1.json',
  'jennifer818.json',
  'servicenow.json',
  'shawnharmsen1.json',
  'yfinance.json',
];
const stbFiles = ['G1_category', 'G1_instruction', 'G1_tool', 'G2_category', 'G2_instruction', 'G3_instruction'];
const snake = (s) =>
  clean(s)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

export const SOURCES = [
  {
    repo: 'ShishirPatil/gorilla',
    commit: '6ea57973c7a6097fd7c5915698c54c17c5b1b6c8',
    licence: 'Apache-2.0 (repository LICENSE)',
    what: 'APIBench (data/apibench, data/api): instructions → the Hugging Face / TensorFlow Hub / Torch Hub model API that serves them; API Zoo (data/apizoo): the questions listed with each API',
    registries: [
      apibench('huggingface', 'data/api/huggingface_api.jsonl', ['data/apibench/huggingface_eval.json']),
      apibench('tensorflowhub', 'data/api/tensorflowhub_api.jsonl', ['data/apibench/tensorflow_eval.json']),
      apibench('torchhub', 'data/api/torchhub_api.jsonl', [
        'data/apibench/torchhub_train.json',
        'data/apibench/torchhub_eval.json',
      ]),
      {
        // API Zoo (data/apizoo): community API docs; the files whose entries carry "questions"
        // (listed, so that a clone holding files this snapshot lacks reads the same ones).
        registry: 'apizoo',
        async read(show) {
          const tools = new Map();
          const cases = [];
          for (const file of APIZOO_FILES) {
            const path = `data/apizoo/${file}`;
            let entries;
            try {
              entries = JSON.parse(await show(path));
            } catch {
              continue; // a few files are not valid JSON
            }
            if (!Array.isArray(entries)) entries = [entries];
            for (const api of entries) {
              if (!api || typeof api !== 'object' || !Array.isArray(api.questions) || api.questions.length === 0)
                continue;
              const call = clean(String(api.api_call ?? '').split('(')[0]);
              const name = call || clean(api.api_name);
              if (!name) continue;
              if (!tools.has(name))
                tools.set(name, {
                  name,
                  description: clean([api.functionality, api.meta_data?.description].filter(Boolean).join('. ')),
                });
              for (const q of api.questions)
                if (typeof q === 'string' && clean(q)) cases.push({ query: clean(q), expected: [name] });
            }
          }
          return { tools: [...tools.values()], cases };
        },
      },
    ],
  },
  {
    repo: 'THUNLP-MT/StableToolBench',
    commit: 'aa4ed9f4737ad98bd706663f01d63623c3427812',
    licence: 'Apache-2.0 (repository LICENSE)',
    what: 'ToolBench solvable queries (solvable_queries/test_instruction): a RapidAPI request → its "relevant APIs"; the registry is every API offered in any api_list',
    registries: [
      {
        registry: 'toolbench',
        async read(show) {
          const tools = new Map();
          const cases = [];
          for (const file of stbFiles) {
            for (const item of JSON.parse(await show(`solvable_queries/test_instruction/${file}.json`))) {
              for (const api of item.api_list) {
                const key = `${api.tool_name}\u0000${api.api_name}`;
                if (!tools.has(key)) {
                  const name = `${snake(api.api_name)}_for_${snake(api.tool_name)}`;
                  const description = clean(
                    `${clean(api.api_description) || clean(api.api_name)} (${clean(api.tool_name)}, ${clean(api.category_name)})`,
                  );
                  tools.set(key, { name, description });
                }
              }
              const expected = [
                ...new Set(
                  item['relevant APIs'].map(([tool, api]) => tools.get(`${tool}\u0000${api}`)?.name).filter(Boolean),
                ),
              ];
              if (expected.length > 0) cases.push({ query: clean(item.query), expected });
            }
          }
          return { tools: [...tools.values()], cases };
        },
      },
    ],
  },
  {
    repo: 'AlibabaResearch/DAMO-ConvAI',
    commit: '483554eae102996f5ec1f4feab4e78ef29c2a394',
    licence: 'Apache-2.0 (api-bank/LICENSE)',
    what: 'API-Bank (api-bank/): the APIs of data/all_apis.csv; one case per level-1/2 dialogue: the first user message → the APIs the dialogue calls',
    registries: [
      {
        registry: 'apibank',
        async read(show, list) {
          const rows = parseCsv(await show('api-bank/data/all_apis.csv'));
          const head = rows[0];
          const cls = head.indexOf('类名');
          const info = head.indexOf('api_info');
          const tools = [];
          for (const row of rows.slice(1)) {
            const name = clean(row[cls]);
            const m =
              /description\s*=\s*"([^"]*)"/.exec(row[info] ?? '') ??
              /description\s*=\s*'([^']*)'/.exec(row[info] ?? '');
            if (name && m) tools.push({ name, description: clean(m[1]) });
          }
          const names = new Set(tools.map((t) => t.name));
          const cases = [];
          for (const path of await list('api-bank/lv1-lv2-samples/level-1-given-desc/')) {
            const turns = (await show(path))
              .split('\n')
              .filter((l) => l.trim())
              .map((l) => JSON.parse(l));
            const first = turns.find((t) => t.role === 'User');
            const expected = [
              ...new Set(turns.filter((t) => t.role === 'API' && names.has(t.api_name)).map((t) => t.api_name)),
            ];
            if (first && expected.length > 0) cases.push({ query: clean(first.text), expected });
          }
          return { tools, cases };
        },
      },
    ],
  },
  {
    repo: 'microsoft/ToolTalk',
    commit: 'e05f4ce6132c80ed33392b81535b077d56ab28fd',
    licence: 'MIT (repository LICENSE)',
    what: 'ToolTalk (src/tooltalk/apis, data/easy, data/tooltalk): each user turn → the APIs the next assistant turn calls',
    registries: [
      {
        registry: 'tooltalk',
        async read(show, list) {
          const tools = [];
          for (const path of await list('src/tooltalk/apis/')) {
            const text = await show(path);
            for (const m of text.matchAll(
              /class (\w+)\(API\):\s*\n\s*description\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g,
            )) {
              tools.push({ name: m[1], description: clean(m[2].slice(1, -1)) });
            }
          }
          const names = new Set(tools.map((t) => t.name));
          const cases = [];
          for (const dir of ['data/easy/', 'data/tooltalk/']) {
            for (const path of await list(dir)) {
              const convo = JSON.parse(await show(path)).conversation;
              for (let i = 0; i < convo.length - 1; i++) {
                if (convo[i].role !== 'user') continue;
                const next = convo[i + 1];
                const expected = [
                  ...new Set((next.apis ?? []).map((a) => a.request.api_name).filter((n) => names.has(n))),
                ];
                if (expected.length > 0) cases.push({ query: clean(convo[i].text), expected });
              }
            }
          }
          return { tools, cases };
        },
      },
    ],
  },
  {
    repo: 'Yifan-Song793/RestGPT',
    commit: 'd99012860cb45323975bf5780152d7aa44f390f5',
    licence: 'MIT (repository LICENSE)',
    what: 'RestBench (datasets/, specs/): a TMDB or Spotify request → the endpoints of its solution path',
    registries: ['tmdb', 'spotify'].map((api) => ({
      registry: `restbench_${api}`,
      async read(show) {
        const spec = JSON.parse(await show(`specs/${api}_oas.json`));
        const tools = [];
        const byKey = new Map();
        for (const [path, ops] of Object.entries(spec.paths)) {
          for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
            const op = ops[method];
            if (!op) continue;
            const name = `${method}_${path
              .replace(/\{[^}]*\}/g, '')
              .replace(/[^A-Za-z0-9]+/g, '_')
              .replace(/^_|_$/g, '')}`;
            const description = clean([op.summary, op.description].filter(Boolean).join('. '));
            byKey.set(`${method.toUpperCase()} ${path}`, name);
            if (!tools.some((t) => t.name === name)) tools.push({ name, description });
          }
        }
        const cases = [];
        for (const item of JSON.parse(await show(`datasets/${api}.json`))) {
          const expected = [...new Set(item.solution.map((s) => byKey.get(clean(s))).filter(Boolean))];
          if (expected.length > 0) cases.push({ query: clean(item.query), expected });
        }
        return { tools, cases };
      },
    })),
  },
];
