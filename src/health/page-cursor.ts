import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { KeysetPage } from '../model/keyset-page.ts';
import type { PageAfter } from '../store/health-repo.ts';
import { decodeCursor, encodeCursor } from '../traces/cursor.ts';

/** The keyset position an opaque cursor names; a cursor that is not one is a 422 naming `after`. */
export function pageAfter(after: string | null | undefined): PageAfter | undefined {
  if (!after) return undefined;
  const issues: ValidationIssue[] = [];
  const at = decodeCursor(after, issues);
  if (!at)
    throw new SpyglassError('validation', 'Invalid cursor', {
      issues: [{ loc: ['args', 'after'], msg: 'Invalid cursor', type: 'value_error' }],
    });
  return { time: at.time, id: at.id };
}

/** A page from `limit + 1` rows read newest first: the extra row only says that more follow. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => PageAfter): KeysetPage<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const next = rows.length > limit && last ? keyOf(last) : null;
  return { items, nextCursor: next ? encodeCursor(next.time, next.id) : null };
}

/** The cursor of one item of such a page (a connection edge's cursor). */
export function keysetCursor(time: Date | null, id: string): string {
  return encodeCursor(time ?? new Date(0), id);
}
