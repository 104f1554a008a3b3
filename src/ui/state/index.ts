// The UI state layer's public surface: store, reducer, history loading, selectors, frames.

export * from './types.js';
export { createUiState } from './draft.js';
export { reduce, reduceAll, isFinalStatus, LIVE_TAIL_LINES, type UiInput } from './reducer.js';
export { loadHistory } from './history.js';
export * from './selectors.js';
export { findSafeCut, countLines } from './markdown-split.js';
export { createUiStore, type UiStore } from './store.js';
export { FrameScheduler, FRAME_MS, type FrameSource } from './frame-scheduler.js';
export { useFrameState, useFrameSelector } from './use-frame-state.js';
export { loadTree } from './load-tree.js';
