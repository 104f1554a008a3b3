// Fills the UI store from the core's stored history: one session, or a whole tree. Used when
// the screen opens, resumes, switches root, or views a child, so a stored session or an
// already-finished child renders exactly like one followed live. Sessions the UI already
// followed live are left alone (reloading would drop their live-only fields).
import type { UiCore } from '../core-api.js';
import type { UiStore } from './store.js';

/**
 * Loads a stored session and (when `recursive`) all its descendants into the UI store, so a
 * resumed session or an already-finished child renders like one followed live.
 */
export function loadTree(core: UiCore, store: UiStore, sessionId: string, recursive: boolean, opts: { reload?: boolean } = {}): void {
  const known = store.getState().sessions[sessionId];
  // A session the UI followed live already has its items; reloading would drop live fields
  // (`reload`: after undo, redo or rewind, which only run while it is idle).
  if (opts.reload || !known || (store.getState().items[sessionId]?.length ?? 0) === 0) {
    // Undone turns stay in the transcript, marked, as `sessions show` prints them.
    const loaded = core.history(sessionId, { withUndone: true });
    if (!loaded) return;
    store.loadHistory(sessionId, loaded.messages, { ...loaded.session, children: core.children(sessionId) }, loaded.undone);
  }
  if (!recursive) return;
  for (const child of core.children(sessionId)) loadTree(core, store, child.id, true);
}
