// The block-selection mode of a session view (the `session_child_select` key): a selection
// moved over the view's sub-agent blocks. Contract:
// - `start()` turns it on at the newest block (false, and nothing changes, when the view has
//   none); it ends on Esc, on Enter (which opens that child's view) and when the view changes.
// - While it is on and `isActive`, it owns ↑/↓ (also k/j), Enter, Esc, `u` (asks to revert the
//   selected child through `onRevert`) and `o`/Ctrl+O (that block's diff alone, shown or
//   hidden). It is modal: it consumes every other key too (nothing reaches the prompt),
//   except Ctrl+C; such a key sets `strayKey` (the screen says it was not typed) until
//   the next key the mode uses. The leader keys (the revert key among them) are the
//   keymap's, seen first.
// - Keys after `u` or Enter in the same write wait (the router's hold) until the question
//   `onRevert` opens, or the child's view, is on screen: `uy` reverts, Enter then text types
//   into the child's prompt.
// - Every change of what the blocks draw calls `repaint`, since finished blocks are printed
//   once (<Static>) and only a reprint shows the marker moving.
// State is read through refs, so keys arriving in one write (↑↑u) act in order.
import { useCallback, useEffect, useMemo } from 'react';
import { useHoldKeys, useKeys } from '../keys/key-router.js';
import { useRefState } from '../keys/ref-state.js';
import type { InputKey } from '../keys/key-stream.js';
import type { BlockSelectionView } from '../components/tree/block-selection.js';
import type { UiStore } from '../state/store.js';
import { selectableBlocks, stepSelection, type SelectedBlock } from './block-selection.js';

export interface BlockSelectionOptions {
  store: UiStore;
  viewId: string;
  /** False while something else has the keys (a dialog, an overlay, a pending leader chord). */
  isActive: boolean;
  repaint: () => void;
  /** Enter: step into the selected child's view. */
  onOpen: (childId: string) => void;
  /** `u`: ask to revert the selected child; settles once the question (or why not) is shown. */
  onRevert: (childId: string) => PromiseLike<unknown> | void;
}

export interface BlockSelection {
  /** The selected block while the mode is on, as of this render. */
  selected: SelectedBlock | undefined;
  /** The selected block now (a key handler may run before the next render). */
  current(): SelectedBlock | undefined;
  /** What the task blocks draw from (see components/tree/block-selection.ts). */
  view: BlockSelectionView;
  /** A key the mode does not use was typed since the last one it does (it went nowhere). */
  strayKey: boolean;
  start(): boolean;
}

const NO_CHILDREN: ReadonlySet<string> = new Set();

export function useBlockSelection(options: BlockSelectionOptions): BlockSelection {
  const { store, viewId, isActive, repaint, onOpen, onRevert } = options;
  const [getSelected, setSelected] = useRefState<SelectedBlock | undefined>(undefined);
  const [getExpanded, setExpanded] = useRefState<ReadonlySet<string>>(NO_CHILDREN);
  const [getStray, setStray] = useRefState(false);
  const hold = useHoldKeys();
  const selected = getSelected();
  const expanded = getExpanded();

  // Another view has other blocks: the mode ends with the view it was started in.
  useEffect(
    () => () => {
      setSelected(undefined);
      setStray(false);
    },
    [viewId, setSelected, setStray],
  );

  const start = useCallback((): boolean => {
    const first = stepSelection(selectableBlocks(store.getState(), viewId), getSelected(), 0);
    if (!first) return false;
    setSelected(first);
    setStray(false);
    repaint();
    return true;
  }, [store, viewId, getSelected, setSelected, setStray, repaint]);

  useKeys(
    (input, key) => {
      const current = getSelected();
      if (!current) return false;
      if (key.ctrl && input === 'c') return false;
      const used = handle(input, key, current);
      setStray(!used);
      // The mode is modal: nothing is typed into the prompt meanwhile.
      return true;
    },
    // Active whether or not the mode is on yet: a key right behind the one that started it
    // (same write, no render between) must find it on. The handler checks the ref.
    { isActive, shortcut: true },
  );

  /** Acts on a key of the mode; false when the mode has no use for it. */
  function handle(input: string, key: InputKey, current: SelectedBlock): boolean {
    const move = (step: -1 | 1): true => {
      const next = stepSelection(selectableBlocks(store.getState(), viewId), current, step);
      if (next && next.callId !== current.callId) {
        setSelected(next);
        repaint();
      }
      return true;
    };
    if (key.upArrow || (!key.ctrl && !key.meta && input === 'k')) return move(-1);
    if (key.downArrow || (!key.ctrl && !key.meta && input === 'j')) return move(1);
    if (key.escape) {
      setSelected(undefined);
      repaint();
      return true;
    }
    if (key.return) {
      setSelected(undefined);
      onOpen(current.childId);
      // What follows in the same write is for the child's view, once it is drawn.
      hold(Promise.resolve());
      return true;
    }
    if (!key.ctrl && !key.meta && input === 'u') {
      const asked = onRevert(current.childId);
      // A `y` in the same write answers the question, once it is open.
      if (asked) hold(asked);
      return true;
    }
    // `o`, or Ctrl+O (Ink reports it as `o` with ctrl), which otherwise expands every block.
    if (input === 'o' && !key.meta) {
      const next = new Set(getExpanded());
      if (!next.delete(current.childId)) next.add(current.childId);
      setExpanded(next);
      repaint();
      return true;
    }
    return false;
  }

  const view = useMemo<BlockSelectionView>(
    () => ({ selecting: selected !== undefined, selectedCallId: selected?.callId, expandedChildIds: expanded }),
    [selected, expanded],
  );
  return { selected, current: getSelected, view, start, strayKey: selected !== undefined && getStray() };
}
