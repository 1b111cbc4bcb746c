import { describe, expect, it } from 'vitest';
import {
  assertAdvertised,
  createToolNameMap,
  requestToolNameMap,
  WIRE_NAME_PATTERN,
} from '../../src/model/tool-names.js';

function roundTrip(names: readonly string[]): Map<string, string> {
  const map = createToolNameMap(names);
  const wires = new Map<string, string>();
  for (const name of names) {
    const wire = map.toWire(name);
    expect(wire, name).toMatch(WIRE_NAME_PATTERN);
    expect(map.fromWire(wire), wire).toBe(name);
    wires.set(name, wire);
  }
  expect(new Set(wires.values()).size, 'wire names are distinct').toBe(new Set(names).size);
  return wires;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const tricky = [
  'get_weather',
  'math.factorial',
  'math_factorial_',
  'a.b',
  'a_b',
  'a-b',
  'a b',
  'a/b',
  'a:b',
  'a..b',
  'a__b',
  '',
  ' ',
  '天気',
  '天气',
  'météo.actuelle',
  'meteo.actuelle',
  'emoji.🚀',
  'emoji.🛸',
  'x'.repeat(64),
  'x'.repeat(65),
  `${'x'.repeat(65)}.y`,
  `${'y'.repeat(70)}.a`,
  `${'y'.repeat(70)}.b`,
  'spotify.play',
  'spotify_play',
];

describe('createToolNameMap', () => {
  it('keeps valid names as they are', () => {
    const map = createToolNameMap(['get_weather', 'read-file', 'X9']);
    expect(map.toWire('get_weather')).toBe('get_weather');
    expect(map.toWire('read-file')).toBe('read-file');
  });

  it('maps dotted names to readable wire names and back', () => {
    const map = createToolNameMap(['math.factorial', 'geometry.area_circle']);
    expect(map.toWire('math.factorial')).toBe('math_factorial');
    expect(map.fromWire('math_factorial')).toBe('math.factorial');
    expect(map.toWire('geometry.area_circle')).toBe('geometry_area_circle');
  });

  it('round-trips a tricky set: collisions after sanitising, long names, unicode, empty', () => {
    const wires = roundTrip(tricky);
    expect(wires.get('spotify_play')).toBe('spotify_play');
    expect(wires.get('spotify.play')).toMatch(/^spotify_play_[0-9a-z]{8}$/);
    expect(wires.get('a_b')).toBe('a_b');
    expect(wires.get('a.b')).toMatch(/^a_b_[0-9a-z]{8}$/);
    expect(wires.get('天気')).toMatch(/^___[0-9a-z]{8}$/);
    expect(wires.get('x'.repeat(64))).toBe('x'.repeat(64));
    expect(wires.get('x'.repeat(65))?.length).toBe(64);
  });

  it('does not depend on the order names arrive in', () => {
    const reference = roundTrip(tricky);
    for (const seed of [1, 2, 3, 4, 5]) expect(roundTrip(shuffled(tricky, seed))).toEqual(reference);
  });

  it('stays collision-free when a valid name equals another name hashed form', () => {
    const first = createToolNameMap(['a.b', 'a_b']).toWire('a.b');
    roundTrip(['a.b', 'a_b', first]);
  });

  it('handles a BFCL-sized set of dotted names', () => {
    const names: string[] = [];
    for (let i = 0; i < 871; i++) names.push(`module${i % 37}.function_${i}`, `module${i % 37}_function_${i}`);
    roundTrip(names.slice(0, 871));
    roundTrip(names);
  });

  it('passes unknown wire names through and still makes unknown names valid', () => {
    const map = createToolNameMap(['a.b']);
    expect(map.fromWire('hallucinated_tool')).toBe('hallucinated_tool');
    expect(map.toWire('not.registered')).toMatch(WIRE_NAME_PATTERN);
  });
});

describe('requestToolNameMap', () => {
  it('covers advertised tools and names from past calls', () => {
    const map = requestToolNameMap({
      tools: [{ name: 'math.factorial', description: '', parameters: {} }],
      messages: [{ role: 'assistant', content: '', toolCalls: [{ id: '1', name: 'math_factorial', arguments: '{}' }] }],
    });
    expect(map.toWire('math_factorial')).toBe('math_factorial');
    expect(map.toWire('math.factorial')).toMatch(/^math_factorial_[0-9a-z]{8}$/);
  });
});

describe('assertAdvertised', () => {
  it('throws for a forced tool that is not advertised', () => {
    const tools = [{ name: 'a', description: '', parameters: {} }];
    expect(() => assertAdvertised('a', tools)).not.toThrow();
    expect(() => assertAdvertised('b', tools)).toThrow(TypeError);
  });
});
