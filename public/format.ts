/**
 * Number formatting for the page without `toLocaleString`: its first call loads ICU's locale
 * data (about 25 ms measured here), on the main thread while the model loads.
 */

/**
 * An integer with commas between thousands, as `toLocaleString('en-US')` writes it.
 *
 * @example
 * groupThousands(12345) // '12,345'
 */
export function groupThousands(value: number): string {
  const digits = String(Math.round(Math.abs(value)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return value < 0 && digits !== '0' ? `-${grouped}` : grouped;
}
