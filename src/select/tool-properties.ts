import type { ToolSchema } from '../registry/schema.js';

/**
 * A tool's top-level parameter schemas by name, or undefined when it declares none (or not as an
 * object).
 *
 * @example
 * toolProperties({ name: 'get_weather', description: '', parameters: { type: 'object',
 *   properties: { city: { type: 'string' } } } }) // { city: { type: 'string' } }
 */
export function toolProperties(tool: ToolSchema): Record<string, unknown> | undefined {
  const parameters = tool?.parameters as Record<string, unknown> | undefined;
  const props = parameters && typeof parameters === 'object' ? parameters.properties : undefined;
  return props && typeof props === 'object' && !Array.isArray(props) ? (props as Record<string, unknown>) : undefined;
}
