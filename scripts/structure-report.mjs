#!/usr/bin/env node
// The structure figures issue 48 asks for, read from a real TypeScript syntax tree (oxc, through
// rolldown's `parseAst`: TypeScript 7 has no JS API and no parser is added for this):
//   - function lengths: every function declaration, function expression, arrow function and
//     method, lines from its first to its last; a nested function counts on its own and inside
//     its parent (so a 500-line closure cannot hide by being made of small inner functions);
//   - nesting depth: the deepest control structure inside each function's own body;
//   - protocol branches: a `protocol`-named value (or `.protocol` member) compared with, or
//     switched over, a string literal outside the protocol objects (src/hono/proxy/protocols/);
//   - English tables: module-level literals holding four or more English words (arrays, Sets,
//     Maps, objects, word lists split from a string, regex alternations) outside the lexicon,
//     and the inline rules (regexes and word lists inside functions) beside them. A literal that
//     also holds code names (`tool_names`, `timeoutMs`, `keep-alive`, `cdn\.jsdelivr\.net`), an
//     enum (`Auto: 'auto'`) or a union tag (`type: 'object'`) is code, not English: header
//     names, config keys and JSON Schemas stay out of the count.
//
// Usage: node scripts/structure-report.mjs [dir=src] [--json] [--top 15]
//                                           [--max-function-lines N] [--max-depth 6]
// --max-function-lines N exits 1 when any function runs over N lines, so CI can gate on it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseAst } from 'rolldown/parseAst';

/** Files whose protocol branches are the point: the per-protocol objects. */
const PROTOCOL_HOME = /^hono\/proxy\/protocols\//;
/** Files that are the lexicon: English tables belong there. */
const LEXICON_HOME = /(?:^|\/)text\/lexicon[^/]*(?:\/|\.ts$)|(?:^|\/)[^/]*-lexicon\.ts$/;
/** A protocol-named value: `protocol`, `wireProtocol`, `request.protocol`. */
const PROTOCOL_NAME = /protocol$/i;
/** A URL scheme (`url.protocol === 'https:'`) is not a wire protocol. */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:$/;
/** One English word, as a table holds it: lowercase letters, an apostrophe ("let's"), no code. */
const WORD = /^[a-z]+(?:'[a-z]+)?$/;
/** A phrase of such words ("look up", "as well as"). */
const PHRASE = /^[a-z]+(?:'[a-z]+)?(?: [a-z]+(?:'[a-z]+)?)+$/;
/** The least number of words that makes a literal a table. */
const TABLE_WORDS = 4;

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const NESTING_TYPES = new Set([
  'IfStatement',
  'ForStatement',
  'ForInStatement',
  'ForOfStatement',
  'WhileStatement',
  'DoWhileStatement',
  'SwitchStatement',
  'TryStatement',
]);

/** Every `.ts` file under a folder, sorted, as absolute paths. */
export function tsFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out.sort();
}

/** Offset → 1-based line, by binary search over the line starts. */
function lineIndex(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** The child nodes of an oxc ESTree node, in source order. */
function children(node) {
  const out = [];
  for (const key in node) {
    if (key === 'type' || key === 'start' || key === 'end') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item.type === 'string') out.push(item);
    } else if (value && typeof value.type === 'string') out.push(value);
  }
  return out;
}

/** The name a key or binding reads as in source, or undefined. */
function keyName(key) {
  if (!key) return undefined;
  if (key.type === 'Identifier' || key.type === 'PrivateIdentifier') return key.name;
  if (key.type === 'Literal') return String(key.value);
  if (key.type === 'MemberExpression' && !key.computed) {
    const object = keyName(key.object) ?? (key.object.type === 'ThisExpression' ? 'this' : undefined);
    return object === undefined ? key.property.name : `${object}.${key.property.name}`;
  }
  return undefined;
}

/** How a function is called where it stands: its own name, its binding, its key, its callee. */
function functionName(node, parent) {
  if (node.id?.name) return node.id.name;
  if (!parent) return '(anonymous)';
  if (parent.type === 'VariableDeclarator') return keyName(parent.id) ?? '(anonymous)';
  if (parent.type === 'Property' || parent.type === 'PropertyDefinition') return keyName(parent.key) ?? '(anonymous)';
  if (parent.type === 'AssignmentExpression') return keyName(parent.left) ?? '(anonymous)';
  if (parent.type === 'CallExpression' || parent.type === 'NewExpression') {
    const callee = keyName(parent.callee);
    return callee ? `(callback of ${callee})` : '(callback)';
  }
  return '(anonymous)';
}

/** The value a protocol branch tests: `protocol`, `x.protocol`, `x?.protocol`. */
function isProtocolValue(node) {
  if (!node) return false;
  if (node.type === 'ChainExpression') return isProtocolValue(node.expression);
  if (node.type === 'TSAsExpression' || node.type === 'TSNonNullExpression') return isProtocolValue(node.expression);
  if (node.type === 'Identifier') return PROTOCOL_NAME.test(node.name);
  if (node.type === 'MemberExpression' && !node.computed) return PROTOCOL_NAME.test(node.property.name);
  return false;
}

/** A string literal naming a wire protocol (not a URL scheme). */
function isProtocolLiteral(node) {
  return node?.type === 'Literal' && typeof node.value === 'string' && !URL_SCHEME.test(node.value);
}

const EQUALITY = new Set(['===', '!==', '==', '!=']);

/** Is this node one protocol branch: a comparison, or a switch case under a protocol switch? */
function protocolBranch(node, parent) {
  if (node.type === 'BinaryExpression' && EQUALITY.has(node.operator)) {
    return (
      (isProtocolValue(node.left) && isProtocolLiteral(node.right)) ||
      (isProtocolValue(node.right) && isProtocolLiteral(node.left))
    );
  }
  return (
    node.type === 'SwitchCase' &&
    parent?.type === 'SwitchStatement' &&
    isProtocolValue(parent.discriminant) &&
    isProtocolLiteral(node.test)
  );
}

/** A code name, not prose: snake_case, camelCase, dotted, hyphenated, a path or a scope. */
const CODE_NAME = /[A-Za-z0-9][_.@][A-Za-z0-9]|\w{2}\/|\/\w{2}|[a-z][A-Z]|[A-Za-z]-[A-Za-z]|^[_@]/;
/** Keys whose string value is a tag of a union (`{ type: 'object' }`), never a table entry. */
const TAG_KEYS = new Set(['type', 'kind', 'role']);

/**
 * The alternatives of a regex source, at every group level, each with its nested groups taken
 * out and its whitespace escapes read as spaces: `(?:then|after\s+that)` gives "then" and
 * "after that"; `cdn\.jsdelivr\.net` keeps its escaped dots (a host name, so code).
 */
export function regexAlternatives(source) {
  const out = [];
  const stack = [{ current: '', alternatives: [] }];
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    const top = stack.at(-1);
    if (char === '\\') {
      top.current += source.slice(i, i + 2);
      i++;
    } else if (char === '[') {
      let j = i + 1;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      top.current += source.slice(i, j + 1);
      i = j;
    } else if (char === '(') {
      const head = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_]\w*>)/.exec(source.slice(i))?.[0] ?? '(';
      stack.push({ current: '', alternatives: [] });
      i += head.length - 1;
    } else if (char === ')' && stack.length > 1) {
      const group = stack.pop();
      out.push(...group.alternatives, group.current);
    } else if (char === '|') {
      top.alternatives.push(top.current);
      top.current = '';
    } else top.current += char;
  }
  for (const group of stack) out.push(...group.alternatives, group.current);
  return out.map(readAlternative).filter((alternative) => alternative.length > 0);
}

/**
 * One alternative as text: whitespace (`\s+`, `[\s-]+`) as a space, an escaped `.`, `-` or `/`
 * as itself (so a host name reads as code), anchors and quantifiers gone, any other class or
 * escape as an opaque mark (NUL) that is neither word nor code.
 */
function readAlternative(alternative) {
  return alternative
    .replace(/\[(?:\\s|\s|-)+\]|\\s/g, ' ')
    .replace(/\[(?:\\.|[^\]\\])*\]/g, '\0')
    .replace(/\\b|[\^$]/g, '')
    .replace(/\\([.\-/])/g, '$1')
    .replace(/\\[pPu]\{[^}]*\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\./g, '\0')
    .replace(/[?*+]|\{\d+(?:,\d*)?\}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What a literal holds: English words and code names, counted apart. */
function tally(words = [], codes = 0) {
  return { words, codes };
}

function joinTallies(tallies) {
  return tally(
    tallies.flatMap((t) => t.words),
    tallies.reduce((sum, t) => sum + t.codes, 0),
  );
}

/** A regex's word alternatives (and its code names), only when it is an alternation at all. */
function regexTally(source) {
  const alternatives = regexAlternatives(source);
  if (alternatives.length < 2) return tally();
  const words = alternatives.filter((a) => WORD.test(a) || PHRASE.test(a));
  const codes = alternatives.filter((a) => CODE_NAME.test(a)).length;
  return tally(words, codes);
}

/** The text of a string-ish node: a literal, a plain template, `String.raw` of a plain template. */
function stringText(node) {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) {
    return node.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw).join('');
  }
  if (node.type === 'TaggedTemplateExpression' && keyName(node.tag) === 'String.raw') {
    return node.quasi.expressions.length === 0 ? node.quasi.quasis.map((quasi) => quasi.value.raw).join('') : undefined;
  }
  return undefined;
}

/** Where a table's entries can be: not inside functions, not behind a condition (messages). */
const OPAQUE = new Set([...FUNCTION_TYPES, 'ConditionalExpression', 'LogicalExpression', 'TemplateLiteral']);

/**
 * The English words a literal holds, and how many code names sit beside them: word and phrase
 * strings, a word list split from one string ('the and for …'.split(…)), the word keys of an
 * object whose values hold words, regex alternations, the strings a `new RegExp(…)` is built
 * from. A table that also holds code names (`tool_names`, `keep-alive`) is a table of code.
 */
export function literalTally(node, inRegExp = false) {
  if (!node) return tally();
  const text = stringText(node);
  if (text !== undefined) {
    if (inRegExp) return regexTally(text.includes('|') ? text : `${text}|`);
    if (WORD.test(text) || PHRASE.test(text)) return tally([text]);
    if (CODE_NAME.test(text)) return tally([], 1);
    // A word list written as one string and split: every word is an entry.
    const words = text.trim().split(/\s+/);
    return words.length >= TABLE_WORDS && words.every((word) => WORD.test(word)) ? tally(words) : tally();
  }
  if (OPAQUE.has(node.type)) return tally();
  if (node.type === 'Literal' && node.regex) return regexTally(node.regex.pattern);
  if (node.type === 'NewExpression' && keyName(node.callee) === 'RegExp') {
    return joinTallies(node.arguments.slice(0, 1).map((argument) => literalTally(argument, true)));
  }
  if (node.type === 'Property') return propertyTally(node, inRegExp);
  if (
    node.type === 'CallExpression' &&
    node.callee.type === 'MemberExpression' &&
    keyName(node.callee.property) === 'split'
  ) {
    return splitTally(node.callee.object);
  }
  return joinTallies(children(node).map((child) => literalTally(child, inRegExp)));
}

/** A word list written as one string (or a sum of strings) and split: every word is an entry. */
function splitTally(node) {
  const text = stringText(node);
  if (text !== undefined) {
    const words = text.split(/\s+/).filter((word) => word.length > 0);
    return tally(
      words.filter((word) => WORD.test(word)),
      words.filter((word) => CODE_NAME.test(word)).length,
    );
  }
  if (node.type === 'BinaryExpression' && node.operator === '+')
    return joinTallies([splitTally(node.left), splitTally(node.right)]);
  if (node.type === 'ParenthesizedExpression') return splitTally(node.expression);
  return literalTally(node);
}

/** One object property: a word key counts beside word values; a union tag or enum name does not. */
function propertyTally(node, inRegExp) {
  const key = node.computed ? undefined : keyName(node.key);
  if (key !== undefined && TAG_KEYS.has(key)) return tally();
  const value = literalTally(node.value, inRegExp);
  if (node.computed || key === undefined) return value;
  if (CODE_NAME.test(key)) return tally(value.words, value.codes + 1);
  // `Auto: 'auto'` is an enum of code values; `db: 'database'` and `calculate: [...]` are tables.
  if (!(WORD.test(key) || PHRASE.test(key))) return tally();
  return value.words.length > 0 ? tally([key, ...value.words], value.codes) : value;
}

/** Is this tally a table of English: four or more words and no code names among them? */
function isEnglish(t) {
  return t.words.length >= TABLE_WORDS && t.codes === 0;
}

/** Measure one file's source: its functions, protocol branches, English tables and rules. */
export function measureSource(text, file) {
  const line = lineIndex(text);
  const program = parseAst(text, { lang: 'ts' }, file);
  const functions = [];
  const branches = [];
  const tables = [];
  const inlineRules = [];

  // Module-level tables: each top-level binding's initialiser, on its own.
  for (const statement of program.body) {
    const declaration = statement.type.startsWith('Export') ? statement.declaration : statement;
    if (declaration?.type !== 'VariableDeclaration') continue;
    for (const declarator of declaration.declarations) {
      if (!declarator.init || FUNCTION_TYPES.has(declarator.init.type)) continue;
      const words = literalTally(declarator.init);
      if (!isEnglish(words)) continue;
      const [start, end] = [line(declarator.start), line(declarator.end)];
      tables.push({
        file,
        name: keyName(declarator.id) ?? '(pattern)',
        line: start,
        entries: words.words.length,
        lines: end - start + 1,
      });
    }
  }

  // One walk for the rest, keeping the chain of enclosing functions.
  const visit = (node, parent, stack) => {
    let inner = stack;
    if (FUNCTION_TYPES.has(node.type) && node.body) {
      const owner =
        parent?.type === 'MethodDefinition' || (parent?.type === 'Property' && parent.method) ? parent : node;
      const name = parent?.type === 'MethodDefinition' ? keyName(parent.key) : functionName(node, parent);
      const start = line(owner.start);
      const record = {
        file,
        name: stack.length > 0 ? `${stack.at(-1).name} › ${name}` : name,
        line: start,
        lines: line(node.end) - start + 1,
        depth: nestingDepth(node.body),
      };
      functions.push(record);
      inner = [...stack, record];
    }
    if (protocolBranch(node, parent)) branches.push({ file, line: line(node.start) });
    // Inside a function: a regex alternation of words, or a list of words (outermost only).
    const inline =
      stack.length === 0
        ? undefined
        : node.type === 'Literal' && node.regex
          ? 'regex'
          : node.type === 'ArrayExpression' && parent?.type !== 'ArrayExpression'
            ? 'list'
            : undefined;
    const held = inline && literalTally(node);
    if (held && isEnglish(held))
      inlineRules.push({ file, line: line(node.start), kind: inline, entries: held.words.length });
    for (const child of children(node)) visit(child, node, inner);
  };
  visit(program, undefined, []);
  return { functions, branches, tables, inlineRules };
}

/** The deepest nesting of control structures in a function's own body (inner functions apart). */
export function nestingDepth(body) {
  const walk = (node, depth) => {
    if (FUNCTION_TYPES.has(node.type)) return depth;
    // An `else if` continues its chain; it is not one level deeper.
    const elseIf = (child) => node.type === 'IfStatement' && child === node.alternate && child.type === 'IfStatement';
    const here = NESTING_TYPES.has(node.type) ? depth + 1 : depth;
    let deepest = here;
    for (const child of children(node)) deepest = Math.max(deepest, walk(child, elseIf(child) ? depth : here));
    return deepest;
  };
  return children(body).reduce((deepest, child) => Math.max(deepest, walk(child, 0)), 0);
}

/** Function records as listed by length (their depth is listed apart). */
const strip = (functions) => functions.map(({ depth, ...f }) => f);

/** Measure every `.ts` file under `dir`: the figures as one plain object. */
export function structureReport(dir, { top = 15, maxDepth = 6, maxLines } = {}) {
  const functions = [];
  const branches = [];
  const tables = [];
  const inlineRules = [];
  const files = tsFiles(dir);
  for (const path of files) {
    const file = relative(dir, path).split(sep).join('/');
    const measured = measureSource(readFileSync(path, 'utf8'), file);
    functions.push(...measured.functions);
    branches.push(...measured.branches.filter(() => !PROTOCOL_HOME.test(file)));
    if (!LEXICON_HOME.test(file)) {
      tables.push(...measured.tables);
      inlineRules.push(...measured.inlineRules);
    }
  }
  const byLength = [...functions].sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
  const deep = functions.filter((f) => f.depth >= maxDepth);
  const perFile = new Map();
  for (const branch of branches) perFile.set(branch.file, [...(perFile.get(branch.file) ?? []), branch.line]);
  return {
    dir,
    files: files.length,
    functions: {
      total: functions.length,
      over150: functions.filter((f) => f.lines > 150).length,
      over80: functions.filter((f) => f.lines > 80).length,
      longest: strip(byLength.slice(0, top)),
      deep: { threshold: maxDepth, count: deep.length, list: deep },
      ...(maxLines === undefined
        ? {}
        : { overLimit: { limit: maxLines, list: strip(byLength.filter((f) => f.lines > maxLines)) } }),
    },
    protocolBranches: {
      total: branches.length,
      files: perFile.size,
      byFile: [...perFile].map(([file, lines]) => ({ file, count: lines.length, lines })),
    },
    englishTables: {
      total: tables.length,
      entries: tables.reduce((sum, t) => sum + t.entries, 0),
      lines: tables.reduce((sum, t) => sum + t.lines, 0),
      files: new Set(tables.map((t) => t.file)).size,
      list: tables,
    },
    inlineRules: { total: inlineRules.length, list: inlineRules },
  };
}

/** The report as the lines a reader scans. */
export function formatReport(report) {
  const { functions: f, protocolBranches: p, englishTables: e, inlineRules: r } = report;
  const out = [`${report.files} files under ${report.dir}`, ''];
  out.push(`Functions: ${f.total}; over 150 lines: ${f.over150}; over 80 lines: ${f.over80}`);
  for (const fn of f.longest) out.push(`  ${String(fn.lines).padStart(4)}  ${fn.file}:${fn.line}  ${fn.name}`);
  out.push(`Nesting depth >= ${f.deep.threshold}: ${f.deep.count}`);
  for (const fn of f.deep.list) out.push(`  depth ${fn.depth}  ${fn.file}:${fn.line}  ${fn.name}`);
  out.push('', `Protocol branches outside the protocol objects: ${p.total} in ${p.files} files`);
  for (const entry of p.byFile)
    out.push(`  ${String(entry.count).padStart(4)}  ${entry.file} (lines ${entry.lines.join(', ')})`);
  out.push(
    '',
    `English tables outside the lexicon: ${e.total} (${e.entries} entries, ${e.lines} lines) in ${e.files} files`,
  );
  for (const t of e.list)
    out.push(`  ${String(t.entries).padStart(4)}  ${t.file}:${t.line}  ${t.name} (${t.lines} lines)`);
  out.push(`Inline English rules (inside functions): ${r.total}`);
  for (const rule of r.list) out.push(`  ${String(rule.entries).padStart(4)}  ${rule.file}:${rule.line}  ${rule.kind}`);
  return out.join('\n');
}

/** Command line: print (or emit JSON), exit 1 when a function runs over --max-function-lines. */
function cli(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      top: { type: 'string', default: '15' },
      'max-function-lines': { type: 'string' },
      'max-depth': { type: 'string', default: '6' },
    },
  });
  const dir = positionals[0] ?? fileURLToPath(new URL('../src', import.meta.url));
  const limit = values['max-function-lines'] === undefined ? undefined : Number(values['max-function-lines']);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new Error('--max-function-lines takes a whole number of lines');
  const report = structureReport(dir, {
    top: Number(values.top),
    maxDepth: Number(values['max-depth']),
    maxLines: limit,
  });
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  const over = report.functions.overLimit?.list ?? [];
  if (over.length > 0) {
    const names = over.map((fn) => `${fn.file}:${fn.line} ${fn.name} (${fn.lines})`).join('; ');
    console.error(`structure-report: ${over.length} function(s) over ${limit} lines: ${names}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) cli(process.argv.slice(2));
