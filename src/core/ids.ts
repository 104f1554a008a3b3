// Sortable ids (ULID): lexical order is creation order, which the store and listings rely on.
// The random part comes from the system's CSPRNG as in the ulid package, but drawn from a pool
// filled a few kilobytes at a time: the package asks the OS for one byte per character, ~45 µs
// per id, and a fan-out makes dozens of ids (sessions, messages, calls) on its critical path.
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let used = POOL_BYTES;

/** A fraction in [0, 1) from one fresh random byte, as the ulid package's own generator gives. */
function pooledRandom(): number {
  if (used === POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]! / 256;
}

const next = monotonicFactory(pooledRandom);

export function newId(prefix: string): string {
  return `${prefix}_${next()}`;
}
