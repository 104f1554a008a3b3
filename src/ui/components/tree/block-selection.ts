// What the sub-agent blocks draw from the block-selection mode (the `session_child_select`
// key): whether the mode is on, which block is selected, and which sub-agents' blocks show
// their diff on their own. Contract: the screen provides one value per change (blocks in
// <Static> only pick it up when the screen reprints them); without a provider nothing is
// selected and nothing is expanded apart from Ctrl+O's global toggle.
import { createContext } from 'react';

export interface BlockSelectionView {
  /** The mode is on: top-level blocks get a marker column, the selected one a `❯`. */
  selecting: boolean;
  /** The `task` call whose block is selected. */
  selectedCallId: string | undefined;
  /** Sub-agents whose finished blocks are expanded on their own (their diff shown). */
  expandedChildIds: ReadonlySet<string>;
}

export const NO_BLOCK_SELECTION: BlockSelectionView = { selecting: false, selectedCallId: undefined, expandedChildIds: new Set() };

export const BlockSelectionContext = createContext<BlockSelectionView>(NO_BLOCK_SELECTION);
