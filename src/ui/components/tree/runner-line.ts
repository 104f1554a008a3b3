// The line a sub-agent's block adds when its commands run in a container (DESIGN §25): which
// container, on which host — from the task's live progress while it runs, from its outcome once
// it has returned. Plain strings, no React, so row counting can use it.
import type { ToolCallItem } from '../../state/types.js';

export function runnerLine(call: ToolCallItem): string | undefined {
  const runner = call.taskOutcome?.runner ?? call.task?.runner;
  return runner ? `in container ${runner.container} on ${runner.host}` : undefined;
}
