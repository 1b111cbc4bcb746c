/**
 * The docs' settings tables are the declarations rendered (scripts/settings-doc.mjs), so a
 * setting is documented where it is declared and nowhere else.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SettingDoc } from '../../src/hono/setting.js';
import { SETTINGS_DOCS, spliceSettingsTable } from './settings-table.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the settings tables in the docs', () => {
  it.each(Object.entries(SETTINGS_DOCS))(
    'the table in %s is the declarations rendered (run `node scripts/settings-doc.mjs` after editing src/hono/settings.ts)',
    (doc, path) => {
      const published = readFileSync(`${root}${path}`, 'utf8');
      expect(published).toBe(spliceSettingsTable(published, doc as SettingDoc));
    },
  );
});
