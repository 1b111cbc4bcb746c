import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { consumersFor } from '../../src/select/consumer-links.js';
import { inferToolLinks } from '../../src/select/tool-links.js';

const tool = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties, required },
});

// A finder (search_flights) and two tools that take what it returns.
const TOOLS = [
  tool('search_flights', 'Search flights between two airports.', { origin: { type: 'string' } }, ['origin']),
  tool('book_flight', 'Book a flight.', { flight_id: { type: 'string', description: 'The flight' } }, ['flight_id']),
  tool('cancel_flight', 'Cancel a flight.', { flight_id: { type: 'string', description: 'The flight' } }, [
    'flight_id',
  ]),
  tool('get_weather', 'Weather for a city.', { city: { type: 'string' } }, ['city']),
];

describe('consumer links', () => {
  const links = inferToolLinks(TOOLS);

  it('reads the inferred link backwards: a picked finder brings its best-scored consumer', () => {
    expect(links.needs.get(1)?.[0]?.providers).toContain(0);
    const score = Float64Array.of(0.7, 0.5, 0.3, 0.6);
    expect(consumersFor(links, { anchors: [0], surface: new Set([0, 3]), score, top: 0.7, room: 2 })).toEqual([1]);
  });

  it('adds nothing beyond the margin, when the consumer is already there, or with no room', () => {
    const score = Float64Array.of(0.7, 0.3, 0.2, 0.6);
    expect(consumersFor(links, { anchors: [0], surface: new Set([0]), score, top: 0.7, room: 2 })).toEqual([]);
    const near = Float64Array.of(0.7, 0.5, 0.45, 0.6);
    expect(consumersFor(links, { anchors: [0], surface: new Set([0, 1]), score: near, top: 0.7, room: 2 })).toEqual([
      2,
    ]);
    expect(consumersFor(links, { anchors: [0], surface: new Set([0]), score: near, top: 0.7, room: 0 })).toEqual([]);
  });

  it('follows no link from a tool that finds nothing', () => {
    const score = Float64Array.of(0.1, 0.6, 0.6, 0.7);
    expect(consumersFor(links, { anchors: [3], surface: new Set([3]), score, top: 0.7, room: 2 })).toEqual([]);
  });
});
