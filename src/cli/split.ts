import { createHash } from 'node:crypto';

/**
 * The grouping key of a case for the dev/test split (see shared/eval/README.md): the id,
 * except multi-turn ids lose their `-turn<k>` suffix and BFCL `live_*` ids become
 * `<category>-<group>`, so related cases stay on one side.
 */
export function splitKey(id: string): string {
  const turn = /^(.*)-turn\d+$/.exec(id);
  if (turn) return turn[1] as string;
  const live = /^(live_[a-z_]+?)_\d+-(\d+)-\d+$/.exec(id);
  if (live) return `${live[1]}-${live[2]}`;
  return id;
}

/** "dev" (tune on it) when sha256(key)[:8] as an integer mod 100 is under 20, else "test". */
export function splitOf(id: string): 'dev' | 'test' {
  const hex = createHash('sha256').update(splitKey(id)).digest('hex').slice(0, 8);
  return parseInt(hex, 16) % 100 < 20 ? 'dev' : 'test';
}
