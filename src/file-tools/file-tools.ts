/**
 * `loopctl/tools`: Read, Write, Edit, Grep and Glob over a {@link FileSystem} (in memory, the
 * browser's OPFS, or — from `loopctl/tools/node` and `loopctl/tools/deno` — a directory on
 * disk). Web-standard only: nothing here imports `node:` or needs `Deno`.
 */
import type { ToolEntry, ToolRegistry } from '../registry/registry.js';
import { editTool } from './edit-tool.js';
import type { FileSystem } from './file-system.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import type { FileToolsOptions } from './options.js';
import { fileToolsConfig } from './options.js';
import { readTool } from './read-tool.js';
import { writeTool } from './write-tool.js';

export type { EditArgs } from './edit-tool.js';
export { editTool } from './edit-tool.js';
export type { DirEntry, EntryKind, FileErrorCode, FileStat, FileSystem } from './file-system.js';
export { FILE_PATH_LIMITS, FileSystemError, isFileSystemError, normalizePath, pathSegments } from './file-system.js';
export { GlobPatternError, globToRegExp } from './glob-pattern.js';
export type { GlobArgs } from './glob-tool.js';
export { globTool } from './glob-tool.js';
export type { GrepArgs } from './grep-tool.js';
export { grepTool } from './grep-tool.js';
export { memoryFileSystem } from './memory-file-system.js';
export { type OpfsDirectoryHandle, opfsFileSystem } from './opfs-file-system.js';
export type { FileToolNames, FileToolsOptions } from './options.js';
export { FILE_TOOLS_DEFAULTS } from './options.js';
export type { ReadArgs } from './read-tool.js';
export { readTool } from './read-tool.js';
export { decodeText } from './text.js';
export type { WriteArgs } from './write-tool.js';
export { writeTool } from './write-tool.js';

/**
 * The file tools as registry entries, in the order Read, Write, Edit, Grep, Glob (Write and
 * Edit left out when `readOnly`). Limits are checked here, so a bad one throws before any
 * tool is registered.
 *
 * @example
 * registry.registerMany(fileTools(memoryFileSystem(), { readOnly: true }))
 */
export function fileTools(fs: FileSystem, options: FileToolsOptions = {}): ToolEntry[] {
  const config = fileToolsConfig(options);
  const entries = [readTool(fs, config)];
  if (!options.readOnly) entries.push(writeTool(fs, config), editTool(fs, config));
  entries.push(grepTool(fs, config), globTool(fs, config));
  return entries;
}

/**
 * Register Read, Write, Edit, Grep and Glob (names prefixed by `prefix`) on `registry`, all
 * serving `fs`; `readOnly` registers Read, Grep and Glob only. All or nothing: a name clash
 * (without `replace`) registers none. Returns the registered names.
 *
 * Every path the model passes is relative to the file system's root and cannot leave it;
 * failures come back as error results the model can read ("path escapes the root",
 * "binary file, N bytes", "old_string occurs 3 times …"). Paths past `FILE_PATH_LIMITS`
 * (4,096 characters, 256 folders and names, 255-byte names) are refused before storage is
 * touched, and messages show at most 200 characters of any path or pattern.
 *
 * @example
 * const registry = new ToolRegistry()
 * registerFileTools(registry, memoryFileSystem({ 'README.md': '# Demo' }))
 * const loop = new BareLoop({ client, registry, config: { constraint: ToolConstraint.Strict } })
 *   .withToolSelector(new KeywordSelector())
 * await loop.run('find where parseConfig is defined').result()
 */
export function registerFileTools(registry: ToolRegistry, fs: FileSystem, options: FileToolsOptions = {}): string[] {
  const entries = fileTools(fs, options);
  registry.registerMany(entries, { replace: options.replace ?? false });
  return entries.map((entry) => entry.schema.name);
}
