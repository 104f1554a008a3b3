// Sortable ids (ULID): lexical order is creation order, which the store and listings rely on.
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export function newId(prefix: string): string {
  return `${prefix}_${next()}`;
}
