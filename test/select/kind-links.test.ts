import { describe, expect, it } from 'vitest';
import type { ToolSchema } from '../../src/registry/schema.js';
import { addKindLinks, finders, unlinkedInputs, withKindLinks } from '../../src/select/kind-links.js';
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

// The handle is named for the specific kind (a doctor) while the only finder returns the
// general kind (practitioners): no entity word links them.
const TOOLS = [
  tool(
    'bookAppointment',
    'Book an appointment.',
    { doctorId: { type: 'string', description: 'The doctor' }, when: { type: 'string' } },
    ['doctorId', 'when'],
  ),
  tool('findPractitioners', 'Search practitioners by specialty.', { specialty: { type: 'string' } }, ['specialty']),
  tool('getWeather', 'Weather for a city.', { city: { type: 'string' } }, ['city']),
  tool('cancelAppointment', 'Cancel an appointment.', { appointmentId: { type: 'string' } }, ['appointmentId']),
];

describe('kind links', () => {
  it('lists the required handles no word links to, with a text naming the input and its tool', () => {
    const links = inferToolLinks(TOOLS);
    const inputs = unlinkedInputs(TOOLS, links);
    const doctor = inputs.find((input) => input.input.parameter === 'doctorId');
    expect(doctor?.consumer).toBe(0);
    expect(doctor?.text).toContain('doctor id');
    expect(doctor?.text).toContain('book appointment');
  });

  it('reads a finder from the schema: no required handle', () => {
    expect(finders(TOOLS)).toEqual([false, true, true, false]);
  });

  it('serves an unlinked input by the nearest finder above the least cosine, never a non-finder', () => {
    const links = inferToolLinks(TOOLS);
    const inputs = unlinkedInputs(TOOLS, links).filter((input) => input.input.parameter === 'doctorId');
    const more = addKindLinks(TOOLS, links, inputs, [Float32Array.of(0.9, 0.7, 0.2, 0.95)]);
    const link = more.links.find((item) => item.parameter === 'doctorId');
    expect(link?.providers).toEqual(['findPractitioners']);
    expect(more.needs.get(0)?.at(-1)?.providers).toEqual([1]);
  });

  it('leaves an input unlinked when no finder is near enough', () => {
    const links = inferToolLinks(TOOLS);
    const inputs = unlinkedInputs(TOOLS, links).filter((input) => input.input.parameter === 'doctorId');
    const more = addKindLinks(TOOLS, links, inputs, [Float32Array.of(0, 0.1, 0.1, 0)]);
    expect(more.links.some((item) => item.parameter === 'doctorId')).toBe(false);
  });

  it('keeps a declared tool as declared and the links as they are when the embedder fails', async () => {
    const links = inferToolLinks(TOOLS, { declared: { bookAppointment: ['getWeather'] } });
    expect(unlinkedInputs(TOOLS, links).some((input) => input.consumer === 0)).toBe(false);
    const same = await withKindLinks(TOOLS, inferToolLinks(TOOLS), async () => ({ ok: false }));
    expect(same.links).toEqual(inferToolLinks(TOOLS).links);
  });
});
