// Transcript components.

export { TranscriptItem, TranscriptEntryView, type TranscriptItemProps } from './TranscriptItem.js';
export { ToolCall, type ToolCallProps } from './ToolCall.js';
export { toolSummary, toolArgument, callDiff } from './tool-summary.js';
