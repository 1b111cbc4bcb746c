/**
 * What a server says, as the registry and the model see it: a listed tool as a
 * {@link ToolSchema}, a tool result as text.
 */
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, ToolSchema } from '../../registry/schema.js';

/**
 * The registry's view of an MCP tool: `inputSchema` becomes `parameters`, the description
 * (else the title) the description.
 *
 * @example
 * toSchema('github__create_issue', { name: 'create_issue', description: 'Open an issue.', inputSchema: { type: 'object' } })
 * // { name: 'github__create_issue', description: 'Open an issue.', parameters: { type: 'object' } }
 *
 * @internal Not in the published types: it names the SDK's tool type.
 */
export function toSchema(local: string, tool: McpTool): ToolSchema {
  const description = tool.description ?? tool.title ?? tool.annotations?.title ?? '';
  const input = tool.inputSchema as unknown;
  // The MCP specification requires an object schema; a server that sends none still gets a callable tool.
  const parameters: JsonSchema = isPlainObject(input) ? input : { type: 'object', properties: {} };
  return { name: local, description, parameters };
}

/**
 * A tool result as text for the model: text parts as they are, embedded text resources
 * with their URI, anything else (images, audio, blobs, links) as a one-line summary. With
 * no content, the structured content as JSON.
 *
 * @example
 * renderContent({ content: [{ type: 'text', text: 'Rendered.' }, { type: 'image', data: png, mimeType: 'image/png' }] })
 * // 'Rendered.\n[image image/png, 5120 bytes]'
 */
// The parameter is structural (an MCP CallToolResult fits), so the published types need no SDK.
export function renderContent(result: { readonly content?: unknown; readonly structuredContent?: unknown }): string {
  const parts = (Array.isArray(result.content) ? result.content : []) as CallToolResult['content'];
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.map(renderPart).join('\n');
}

function renderPart(part: CallToolResult['content'][number]): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${part.uri}${part.name ? ` (${part.name})` : ''}]`;
    case 'resource': {
      const { resource } = part;
      if ('text' in resource && typeof resource.text === 'string')
        return `[resource ${resource.uri}]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, ${base64Bytes(blob)} bytes]`;
    }
    default:
      return `[${(part as { type?: unknown }).type ?? 'unknown'} content]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function isPlainObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
