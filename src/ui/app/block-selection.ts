// The block-selection mode's rules (the `session_child_select` key), outside React.
// Contract:
// - `selectableBlocks` lists the sub-agent blocks of a view that can be selected: its own
//   `task` calls whose child session is known, in transcript order (a resumed child has a
//   block per call; each is selectable and acts on that child).
// - `stepSelection` moves over them without wrapping; from nothing (or a block that is gone)
//   it lands on the newest, the block nearest the prompt.
// - `selectionHint` is the one line the screen shows while the mode is on: which block, of
//   how many, and the keys.
import { childOfCall, isTaskCall, toolCallsOf } from '../state/selectors.js';
import type { UiState } from '../state/types.js';

export interface SelectedBlock {
  /** The `task` call whose block is selected. */
  callId: string;
  /** The sub-agent session that call ran. */
  childId: string;
}

export function selectableBlocks(state: UiState, viewId: string): SelectedBlock[] {
  const blocks: SelectedBlock[] = [];
  for (const call of toolCallsOf(state, viewId)) {
    if (!isTaskCall(call)) continue;
    const child = childOfCall(state, call);
    if (child) blocks.push({ callId: call.id, childId: child.id });
  }
  return blocks;
}

/** `step` -1 goes to the older block (up), +1 to the newer one (down). */
export function stepSelection(blocks: readonly SelectedBlock[], current: SelectedBlock | undefined, step: -1 | 0 | 1): SelectedBlock | undefined {
  if (blocks.length === 0) return undefined;
  const at = current ? blocks.findIndex((b) => b.callId === current.callId) : -1;
  if (at === -1) return blocks[blocks.length - 1];
  return blocks[Math.min(blocks.length - 1, Math.max(0, at + step))];
}

export function selectionHint(blocks: readonly SelectedBlock[], selected: SelectedBlock, label: string): string {
  const at = blocks.findIndex((b) => b.callId === selected.callId) + 1;
  // The keys first: on a narrow screen the label is what gets cut.
  return `❯ sub-agent ${at} of ${blocks.length} · ↑↓ move · enter open · u revert · o diff · esc done · ${label}`;
}
