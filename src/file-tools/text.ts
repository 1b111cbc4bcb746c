/** Text helpers shared by the file tools: binary detection, line splitting, sizes. */

/** How many leading bytes are checked for a NUL (what git and grep look at). */
export const BINARY_SNIFF_BYTES = 8192;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text of a file, or undefined when it is binary: a NUL byte in the first 8 KB, or bytes
 * that are not valid UTF-8. A BOM is kept, so an edited file keeps it too.
 *
 * @example
 * decodeText(new TextEncoder().encode('héllo')) // 'héllo'
 * decodeText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00])) // undefined
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The lines of a text: split on `\n`, a trailing `\r` dropped from each (CRLF files read like
 * LF ones), and no phantom empty line after a final newline.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** A line cut to `max` characters, saying how long it was. */
export function clipLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [line truncated, ${line.length} characters]`;
}

/** A byte count for people: `512 bytes`, `2 MB`, `10.5 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${units[unit]}`;
}

/** `1 match`, `3 matches`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The 1-based line number of a character index. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
