// Context management (DESIGN §12): request size estimates, pruning, summaries and their
// stored form.
export { estimateTokens, requestChars, type SizeBasis } from './estimate.js';
export { pruneToolOutputs, prunedNote, PROTECTED_ROUNDS } from './prune.js';
export { activeHistory, compactionMark, summaryMessage, SUMMARY_PREFIX } from './summary.js';
export {
  chooseCut,
  compactSession,
  estimateRequest,
  isPromptTooLong,
  manualCompactionSkip,
  MIN_SUMMARISED_TOKENS,
  prepareRequest,
  recordRequestSize,
  requestMessages,
  type CompactableSession,
  type CompactOptions,
  type CompactReason,
  type CompactResult,
  type CompactSkipped,
  type ContextDeps,
  type PreparedRequest,
} from './compact.js';
