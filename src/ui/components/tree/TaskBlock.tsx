// One `task` call drawn as a block: the sub-agent's name in its colour, the task, its
// state, live elapsed time and tool count, its latest tool calls, and its own sub-agents
// nested beneath (capped by depth and count). Child thinking is never shown.

import { Box, Text } from 'ink';
import { memo } from 'react';
import { childOfCall, descendantsOf, toolCallsOf } from '../../state/selectors.js';
import { isRecord } from '../../state/reducer.js';
import type { ToolCallItem, UiState } from '../../state/types.js';
import { MAX_WIDTH, agentColor, roleColor } from '../../theme.js';
import { oneLine } from '../../render/text.js';
import { toolSummary } from '../transcript/tool-summary.js';
import { formatElapsed, isActive, stateColor, stateGlyph, taskElapsed, taskState, taskToolCount } from './status.js';

export interface TaskBlockProps {
  state: UiState;
  call: ToolCallItem;
  /** Clock for spinners and elapsed time (see useNow); passed in so tests are deterministic. */
  now: number;
  width?: number;
  /** Nesting level of this block: 0 for a task of the viewed session. */
  depth?: number;
  /** Deepest level drawn as a block; below it sub-agents collapse to `+N more`. */
  maxDepth?: number;
  /** Sub-agent blocks drawn per level before `+N more`. */
  maxChildren?: number;
  /** Latest tool calls listed under a running sub-agent. */
  latestTools?: number;
  /** Agent colours from config, by agent name. */
  agentColors?: Readonly<Record<string, string>>;
}

const INDENT = 2;

export const TaskBlock = memo(TaskBlockView, (a, b) => {
  if (a.call !== b.call || a.width !== b.width || a.depth !== b.depth || a.latestTools !== b.latestTools) return false;
  const child = childOfCall(b.state, b.call);
  // The child node's version moves with any change in its subtree (see Draft.editSession).
  if (childOfCall(a.state, a.call) !== child) return false;
  return !isActive(taskState(b.state, b.call)) || a.now === b.now;
});

function TaskBlockView(props: TaskBlockProps) {
  const { state, call, now, width = MAX_WIDTH, depth = 0, maxDepth = 2, maxChildren = 3, latestTools = 3, agentColors } = props;
  const child = childOfCall(state, call);
  const input = isRecord(call.input) ? call.input : {};
  const agent = child?.agent || (typeof input['subagent_type'] === 'string' ? input['subagent_type'] : 'task');
  const description = child?.description || (typeof input['description'] === 'string' ? input['description'] : '');
  const s = taskState(state, call);
  const elapsed = s === 'queued' ? undefined : taskElapsed(state, call, now);
  const tools = taskToolCount(state, call);
  const details = [s, elapsed !== undefined ? formatElapsed(elapsed) : undefined, tools ? `${tools} tool${tools === 1 ? '' : 's'}` : undefined]
    .filter(Boolean)
    .join(' · ');

  const active = isActive(s);
  const calls = child ? toolCallsOf(state, child.id) : [];
  const latest = latestTools > 0 ? calls.filter((c) => c.tool !== 'task').slice(-latestTools) : [];
  const subtasks = calls.filter((c) => c.tool === 'task');
  const latestFallback = typeof call.metadata['latest_tool'] === 'string' && latest.length === 0 ? call.metadata['latest_tool'] : undefined;
  const reason = s === 'failed' || s === 'cancelled' ? failureReason(call, child?.statusReason) : undefined;
  const inner = width - INDENT;

  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text color={stateColor(s)}>{stateGlyph(s, now)} </Text>
        <Text bold color={agentColor(agent, agentColors?.[agent])}>
          {agent}
        </Text>
        {description ? <Text> {oneLine(description)}</Text> : null}
        <Text color={roleColor('muted')}> · {details}</Text>
      </Text>
      {active ? (
        <Box flexDirection="column" paddingLeft={INDENT}>
          {latest.map((c) => (
            <Text key={c.id} wrap="truncate-end" color={roleColor('muted')}>
              {c.done ? (c.isError ? '✗' : '⎿') : '›'} {toolSummary(c)}
            </Text>
          ))}
          {latestFallback ? (
            <Text wrap="truncate-end" color={roleColor('muted')}>
              › {latestFallback}
            </Text>
          ) : null}
          <Subtasks {...props} subtasks={subtasks} width={inner} depth={depth} maxDepth={maxDepth} maxChildren={maxChildren} />
        </Box>
      ) : reason ? (
        <Box paddingLeft={INDENT}>
          <Text wrap="truncate-end" color={roleColor('error')}>
            {reason}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}

function Subtasks(props: TaskBlockProps & { subtasks: ToolCallItem[]; width: number; depth: number; maxDepth: number; maxChildren: number }) {
  const { subtasks, ...blockProps } = props;
  const { state, depth, maxDepth, maxChildren } = blockProps;
  if (subtasks.length === 0) return null;
  if (depth + 1 > maxDepth) {
    // Too deep to draw: count every sub-agent below, not only the direct ones.
    const count = subtasks.reduce((n, c) => {
      const grandchild = childOfCall(state, c);
      return n + 1 + (grandchild ? descendantsOf(state, grandchild.id).length : 0);
    }, 0);
    return <Text color={roleColor('muted')}>+{count} more</Text>;
  }
  // Running and queued ones first: they are what the user is waiting on.
  const ordered = [...subtasks.filter((c) => isActive(taskState(state, c))), ...subtasks.filter((c) => !isActive(taskState(state, c))).reverse()];
  const shown = ordered.slice(0, maxChildren);
  const hidden = ordered.length - shown.length;
  return (
    <Box flexDirection="column">
      {shown.map((c) => (
        <TaskBlock key={c.id} {...blockProps} call={c} depth={depth + 1} />
      ))}
      {hidden > 0 ? <Text color={roleColor('muted')}>+{hidden} more</Text> : null}
    </Box>
  );
}

function failureReason(call: ToolCallItem, statusReason: string | undefined): string | undefined {
  if (statusReason) return oneLine(statusReason);
  if (!call.output) return undefined;
  const body = /<task_result>([\s\S]*?)<\/task_result>/.exec(call.output)?.[1] ?? call.output;
  const lines = body.trim().split('\n');
  return oneLine(lines[lines.length - 1] ?? '');
}
