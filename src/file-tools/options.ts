/** Options shared by the file tools, and their defaults. */
import { mergeOptions } from '../options.js';

/**
 * Options for {@link registerFileTools} and the single-tool factories.
 *
 * @example
 * registerFileTools(registry, fs, { readOnly: true, prefix: 'docs_', maxMatches: 50 })
 */
export interface FileToolsOptions {
  /** Register only Read, Grep and Glob (nothing that writes). */
  readOnly?: boolean;
  /** Prepended to every tool name (`fs_` → `fs_Read`); descriptions name the prefixed tools. */
  prefix?: string;
  /** Replace tools of the same names instead of failing (as `ToolRegistry.register`). */
  replace?: boolean;
  /** Largest file Read shows whole, Edit edits and Grep searches. Default 2 MB. */
  maxFileBytes?: number;
  /** Largest file Read pages through with offset/limit. Default 64 MB. */
  maxScanBytes?: number;
  /** Lines Read shows when no limit is given. Default 2000. */
  maxLines?: number;
  /** Characters per line before Read cuts it. Default 2000. */
  maxLineChars?: number;
  /** Characters per result before Read stops adding lines. Default 100,000. */
  maxOutputChars?: number;
  /** Matching lines Grep shows. Default 100. */
  maxMatches?: number;
  /** Paths Glob lists. Default 200. */
  maxPaths?: number;
  /** Files Grep and Glob visit before they stop. Default 20,000. */
  maxFilesVisited?: number;
  /**
   * Matching steps one Grep or Glob call may spend on its pattern (a step: one character read
   * with a known matcher state, or one pattern state visited working out a new one); past it
   * the call fails with "pattern too expensive". Default 100,000,000: a few seconds of
   * matching at most; an ordinary pattern spends about a step per character searched, and
   * none on lines without its literal text.
   */
  maxPatternSteps?: number;
  /**
   * States a compiled Grep or Glob pattern may have: about one per character, times the count
   * of a repeat (`x{1000}` is a thousand). Default 100,000.
   */
  maxPatternStates?: number;
  /** Folder names Grep and Glob skip (default .git, node_modules), unless the search starts inside one or its glob names one. */
  ignoreDirs?: readonly string[];
}

/** The five tool names. */
export interface FileToolNames {
  readonly read: string;
  readonly write: string;
  readonly edit: string;
  readonly grep: string;
  readonly glob: string;
}

/** Options with every default filled in, plus the (prefixed) tool names. */
export interface FileToolsConfig extends Required<Omit<FileToolsOptions, 'prefix' | 'readOnly' | 'replace'>> {
  readonly names: FileToolNames;
}

/**
 * The defaults, for documentation and tests.
 *
 * @example
 * FILE_TOOLS_DEFAULTS.maxFileBytes // 2097152 (2 MB)
 */
export const FILE_TOOLS_DEFAULTS = {
  maxFileBytes: 2 * 1024 * 1024,
  maxScanBytes: 64 * 1024 * 1024,
  maxLines: 2000,
  maxLineChars: 2000,
  maxOutputChars: 100_000,
  maxMatches: 100,
  maxPaths: 200,
  maxFilesVisited: 20_000,
  maxPatternSteps: 100_000_000,
  maxPatternStates: 100_000,
  ignoreDirs: ['.git', 'node_modules'],
} as const;

/** Fill in defaults and check limits (a bad limit throws at registration, not mid-run). */
export function fileToolsConfig(options: FileToolsOptions = {}): FileToolsConfig {
  const { prefix, readOnly, replace, ignoreDirs, ...limits } = mergeOptions(
    { prefix: '', ...FILE_TOOLS_DEFAULTS },
    options,
  );
  const config: FileToolsConfig = {
    ...limits,
    ignoreDirs: [...ignoreDirs],
    names: {
      read: `${prefix}Read`,
      write: `${prefix}Write`,
      edit: `${prefix}Edit`,
      grep: `${prefix}Grep`,
      glob: `${prefix}Glob`,
    },
  };
  for (const key of [
    'maxFileBytes',
    'maxScanBytes',
    'maxLines',
    'maxLineChars',
    'maxOutputChars',
    'maxMatches',
    'maxPaths',
    'maxFilesVisited',
    'maxPatternSteps',
    'maxPatternStates',
  ] as const) {
    const value = config[key];
    if (!(Number.isInteger(value) && value > 0))
      throw new RangeError(`${key} must be a positive integer, got ${value}`);
  }
  if (config.maxScanBytes < config.maxFileBytes) config.maxScanBytes = config.maxFileBytes;
  return config;
}
