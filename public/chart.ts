/**
 * The token chart: schema tokens the request carries, full registry vs each selector's
 * advertised subset. Plain SVG whose colours come from CSS custom properties, so it follows
 * the light/dark theme without re-rendering.
 */
import { s } from './dom.js';
import { groupThousands } from './format.js';

/** One bar. */
export interface ChartRow {
  readonly key: string;
  readonly label: string;
  readonly detail: string;
  readonly tokens: number;
}

const ROW = 34;
const BAR = 18;
const LABEL = 132;
const WIDTH = 640;
const VALUE = 150;

/**
 * Render the bars; widths are relative to the first row (the full registry).
 *
 * @example
 * tokenChart([{ key: 'all', label: 'Full registry', detail: '67 tools', tokens: 9000 }])
 */
export function tokenChart(rows: readonly ChartRow[]): SVGSVGElement {
  const full = Math.max(1, rows[0]?.tokens ?? 1);
  const track = WIDTH - LABEL - VALUE;
  const height = rows.length * ROW + 8;
  const svg = s('svg', {
    class: 'chart',
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': rows.map((row) => `${row.label}: ${row.tokens} tokens`).join('; '),
    preserveAspectRatio: 'xMinYMin meet',
  });
  rows.forEach((row, i) => {
    const y = 4 + i * ROW;
    const width = Math.max(2, (row.tokens / full) * track);
    const share = i === 0 ? '' : ` · ${Math.round((row.tokens / full) * 100)}%`;
    svg.append(
      s('text', { x: 0, y: y + BAR / 2 + 1, class: 'chart-label', 'dominant-baseline': 'middle' }, row.label),
      s('text', { x: 0, y: y + BAR + 9, class: 'chart-detail', 'dominant-baseline': 'middle' }, row.detail),
      s('rect', { x: LABEL, y, width: track, height: BAR, rx: 4, class: 'chart-track' }),
      s('rect', { x: LABEL, y, width, height: BAR, rx: 4, class: `chart-bar chart-${row.key}` }),
      s(
        'text',
        { x: LABEL + track + 8, y: y + BAR / 2 + 1, class: 'chart-value', 'dominant-baseline': 'middle' },
        `${groupThousands(row.tokens)} tok${share}`,
      ),
    );
  });
  return svg;
}
