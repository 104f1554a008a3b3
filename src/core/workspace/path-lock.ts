// One async mutex per path, shared by the whole process: every change `write` and `edit` make
// to a file runs its check-then-replace inside `withPathLock(realPath, …)`, so ten sub-agents
// changing one file at once take turns instead of interleaving a check with another's write.
// Waiters run in arrival order; a failing holder still releases the lock. Another process is
// not covered here: the atomic replace re-checks the content just before it renames.

/** The promise each path's next holder waits on; removed once nobody holds or waits. */
const tails = new Map<string, Promise<void>>();

export async function withPathLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => held);
  tails.set(key, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
