// The block-selection mode's rules (the `session_child_select` key), outside React.
// Contract:
// - `selectableBlocks` lists the sub-agent blocks of a view that can be selected: its own
//   `task` calls whose child session is known, in transcript order (a resumed child has a
//   block per call; each is selectable and acts on that child).
// - `stepSelection` moves over them without wrapping; from nothing (or a block that is gone)
//   it lands on the newest, the block nearest the prompt.
// - `selectionHint` is what the screen shows above the prompt while the mode is on: which
//   block, of how many, and the keys — one line where it fits the width, else two (which
//   block, then the keys as short as needed), never a line wider than the screen; plus, after
//   a key the mode does not use, a line saying it was not typed and that Esc leaves.
import { displayWidth, oneLine, truncate } from '../render/text.js';
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

const SHORTEST_LEGEND = '↑↓ enter u o esc';
/** The keys, longest first: a narrow screen gets the first that fits. */
const KEY_LEGENDS = [
  '↑↓ move · enter open · u revert · o diff · esc done',
  '↑↓ move · enter open · u revert · o diff · esc',
  '↑↓ enter open · u revert · o diff · esc',
  '↑↓ enter u:revert o:diff esc',
  SHORTEST_LEGEND,
] as const;

/** Shown after a key the mode does not use: the prompt does not get it. */
export const TYPING_WAITS = 'Not typed: esc leaves the selection';

export interface SelectionHintInput {
  blocks: readonly SelectedBlock[];
  selected: SelectedBlock;
  /** Who the selected block is, e.g. `build › general (Edit 3)`. */
  label: string;
  /** The screen's columns. */
  width: number;
  /** A key the mode does not use was typed since the last one it does. */
  strayKey: boolean;
}

export interface HintLine {
  text: string;
  /** Drawn as a warning: the key just typed went nowhere. */
  warning: boolean;
}

export function selectionHint({ blocks, selected, label: rawLabel, width, strayKey }: SelectionHintInput): HintLine[] {
  const label = oneLine(rawLabel);
  const at = blocks.findIndex((b) => b.callId === selected.callId) + 1;
  const line = (text: string, warning = false): HintLine => ({ text: truncate(text, width), warning });
  const stray = strayKey ? [line(TYPING_WAITS, true)] : [];
  const keys = `❯ sub-agent ${at} of ${blocks.length} · ${KEY_LEGENDS[0]}`;
  // The keys first: on a wide screen only the label's end is cut.
  if (displayWidth(keys) <= width) return [...stray, line(`${keys} · ${label}`)];
  // Narrow: which block on a line of its own (its block may be scrolled off), then the keys.
  const legend = KEY_LEGENDS.find((l) => displayWidth(l) <= width) ?? SHORTEST_LEGEND;
  return [...stray, line(`❯ ${at}/${blocks.length} ${label}`), line(legend)];
}
