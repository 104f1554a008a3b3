// Where the parent/child keys lead from the session being viewed. Pure functions over the
// UI state so the rules (DESIGN §9) are testable without rendering.
import { childrenOf } from './state/selectors.js';
import type { UiState } from './state/types.js';

export type NavAction = 'session_child_cycle' | 'session_child_cycle_reverse' | 'session_parent' | 'session_child_first';

/**
 * Cycling walks parent → child 1 → child 2 → … → parent among the children of the viewed
 * session's parent (or of the viewed session itself when it has no parent).
 */
export function navigate(state: UiState, viewId: string, action: NavAction): string {
  const view = state.sessions[viewId];
  if (!view) return viewId;
  switch (action) {
    case 'session_parent':
      return view.parentId && state.sessions[view.parentId] ? view.parentId : viewId;
    case 'session_child_first':
      return childrenOf(state, viewId)[0]?.id ?? viewId;
    case 'session_child_cycle':
    case 'session_child_cycle_reverse': {
      const anchor = view.parentId && state.sessions[view.parentId] ? view.parentId : viewId;
      const ring = [anchor, ...childrenOf(state, anchor).map((c) => c.id)];
      if (ring.length === 1) return viewId;
      const at = Math.max(0, ring.indexOf(viewId));
      const step = action === 'session_child_cycle' ? 1 : ring.length - 1;
      return ring[(at + step) % ring.length]!;
    }
  }
}

/** `{ index, total }` of a child among its siblings (1-based), for the child view footer. */
export function siblingPosition(state: UiState, sessionId: string): { index: number; total: number } | undefined {
  const node = state.sessions[sessionId];
  if (!node?.parentId) return undefined;
  const siblings = childrenOf(state, node.parentId);
  return { index: siblings.findIndex((s) => s.id === sessionId) + 1, total: siblings.length };
}
