/**
 * Validating request bodies by hand (no schema library in the worker bundle). Every
 * failure is a 400 that names the offending field.
 */

import type { ToolConstraint } from '../loop/constraint.js';
import { TOOL_CONSTRAINTS } from '../loop/constraint.js';
import type { Message } from '../message.js';
import { ApiError } from './api-error.js';
import { LIMITS } from './limits.js';

/** A validated `POST /v1/select` body. */
export interface SelectInput {
  prompt: string;
  selector: string;
  k: number | undefined;
}

/** A validated `POST /v1/runs` body. */
export interface RunInput {
  input: string | Message[];
  selector: string;
  k: number | undefined;
  constraint: ToolConstraint;
  maxTurns: number;
}

/**
 * Check a `/v1/select` body.
 *
 * @example
 * parseSelectInput({ prompt: 'weather in Oslo', selector: 'bm25', k: 5 }, ['keyword', 'bm25'], 'keyword')
 */
export function parseSelectInput(body: unknown, selectors: readonly string[], defaultSelector: string): SelectInput {
  const record = asObject(body);
  return {
    prompt: requiredPrompt(record.prompt, 'prompt'),
    selector: selectorField(record.selector, selectors, defaultSelector),
    k: kField(record.k),
  };
}

/**
 * Check a `/v1/runs` body: exactly one of `prompt` and `messages`.
 *
 * @example
 * parseRunInput({ prompt: 'weather in Oslo', maxTurns: 3 }, ['keyword'], 'keyword', 8)
 */
export function parseRunInput(
  body: unknown,
  selectors: readonly string[],
  defaultSelector: string,
  defaultTurns: number,
): RunInput {
  const record = asObject(body);
  const hasPrompt = record.prompt !== undefined;
  const hasMessages = record.messages !== undefined;
  if (hasPrompt && hasMessages) throw invalid('prompt', 'give either "prompt" or "messages", not both');
  if (!hasPrompt && !hasMessages) throw invalid('prompt', '"prompt" (a string) or "messages" (an array) is required');
  const input = hasPrompt ? requiredPrompt(record.prompt, 'prompt') : messagesField(record.messages);

  let constraint: ToolConstraint = 'auto';
  if (record.constraint !== undefined) {
    if (typeof record.constraint !== 'string') throw invalid('constraint', '"constraint" must be a string');
    if (!(TOOL_CONSTRAINTS as readonly string[]).includes(record.constraint)) {
      throw invalid(
        'constraint',
        `unknown constraint "${clip(record.constraint)}"; expected one of ${TOOL_CONSTRAINTS.join(', ')}`,
      );
    }
    constraint = record.constraint as ToolConstraint;
  }
  let maxTurns = defaultTurns;
  if (record.maxTurns !== undefined) {
    if (typeof record.maxTurns !== 'number' || !Number.isInteger(record.maxTurns))
      throw invalid('maxTurns', '"maxTurns" must be an integer');
    if (record.maxTurns < LIMITS.minTurns || record.maxTurns > LIMITS.maxTurns) {
      throw invalid('maxTurns', `"maxTurns" must be from ${LIMITS.minTurns} to ${LIMITS.maxTurns}`);
    }
    maxTurns = record.maxTurns;
  }
  return {
    input,
    selector: selectorField(record.selector, selectors, defaultSelector),
    k: kField(record.k),
    constraint,
    maxTurns,
  };
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'invalid_body', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function requiredPrompt(value: unknown, field: string): string {
  if (value === undefined) throw invalid(field, `"${field}" is required`);
  if (typeof value !== 'string') throw invalid(field, `"${field}" must be a string`);
  if (value.trim() === '') throw invalid(field, `"${field}" must not be empty`);
  if (value.length > LIMITS.maxPromptChars)
    throw invalid(field, `"${field}" is longer than ${LIMITS.maxPromptChars} characters`);
  return value;
}

function selectorField(value: unknown, selectors: readonly string[], fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw invalid('selector', '"selector" must be a string');
  if (!selectors.includes(value))
    throw invalid('selector', `unknown selector "${clip(value)}"; expected one of ${selectors.join(', ')}`);
  return value;
}

function kField(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid('k', '"k" must be an integer');
  if (value < LIMITS.minK || value > LIMITS.maxK)
    throw invalid('k', `"k" must be from ${LIMITS.minK} to ${LIMITS.maxK}`);
  return value;
}

function messagesField(value: unknown): Message[] {
  if (!Array.isArray(value)) throw invalid('messages', '"messages" must be an array');
  if (value.length === 0 || value.length > LIMITS.maxMessages) {
    throw invalid('messages', `"messages" must hold from 1 to ${LIMITS.maxMessages} messages`);
  }
  const messages = value.map((item, i): Message => {
    const field = `messages[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalid(field, `"${field}" must be an object`);
    const { role, content } = item as Record<string, unknown>;
    if (role !== 'system' && role !== 'user' && role !== 'assistant') {
      throw invalid(`${field}.role`, `"${field}.role" must be "system", "user" or "assistant"`);
    }
    if (typeof content !== 'string') throw invalid(`${field}.content`, `"${field}.content" must be a string`);
    if (content.length > LIMITS.maxPromptChars)
      throw invalid(`${field}.content`, `"${field}.content" is longer than ${LIMITS.maxPromptChars} characters`);
    return { role, content };
  });
  if (!messages.some((message) => message.role === 'user' && String(message.content).trim() !== '')) {
    throw invalid('messages', '"messages" must contain a non-empty user message');
  }
  return messages;
}

function invalid(field: string, message: string): ApiError {
  return new ApiError(400, 'invalid_field', message, field);
}

// Echoing input back is fine, but bounded.
function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
