/**
 * One page of a newest-first list that can grow (health history, drift events, SLOs, anomalies):
 * the items, and the opaque cursor the next page starts after (null on the last page). GraphQL
 * turns it into a Relay connection; REST returns the items.
 */
export interface KeysetPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** What a caller asks of such a list: how many (the service's default when absent), and after which cursor. */
export interface PageRequest {
  limit?: number | null | undefined;
  after?: string | null | undefined;
}
