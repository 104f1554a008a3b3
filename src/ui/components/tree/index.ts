// Sub-agent tree components.

export { TaskBlock, type TaskBlockProps } from './TaskBlock.js';
export { useNow } from './use-now.js';
export { taskState, formatElapsed, taskElapsed, taskToolCount, type TaskState } from './status.js';
