import type { EmbedProgress } from '../embed/embedder.js';

/** The part of a writable stream the bar needs (process.stderr satisfies it). */
export interface BarStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/**
 * A one-line progress bar for corpus embedding, redrawn in place on a TTY; silent otherwise
 * (a pipe or a CI log gets no carriage-return noise). `done()` ends the line.
 *
 * @example
 * const bar = progressBar(process.stderr, 'embedding')
 * await buildVectorsFile(embedder, tools, { onProgress: bar.update })
 * bar.done()
 */
export function progressBar(
  stream: BarStream,
  label: string,
): { update: (progress: EmbedProgress) => void; done: () => void } {
  const started = performance.now();
  let drawn = false;
  return {
    update({ done, total }) {
      if (!stream.isTTY || total <= 0) return;
      const seconds = (performance.now() - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      const tail = ` ${done}/${total} tools${rate > 0 ? `  ${rate.toFixed(1)}/s` : ''}`;
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - tail.length - 4));
      const filled = Math.round((width * done) / total);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${tail}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
