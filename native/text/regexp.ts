/**
 * A literal text as a regular-expression source, valid with and without the `u` flag: only the
 * syntax characters are escaped (under `u`, an escaped "-" or "/" is an error, "Invalid escape").
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
