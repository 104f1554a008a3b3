// The panel of every live sub-agent and teammate of the tree (DESIGN §9, §24), toggled by
// `keybinds.agents_panel`. Contract: it lists, from the UI state alone, each session under the
// root that is queued, starting, running or idle (a teammate waiting for a message or a task),
// wherever it sits in the tree and whichever view is open — its label (agent and task, as the
// screen names sessions), its state, elapsed time since it started and its latest activity
// (the tool call it runs or ran last, else its last line of text). It stays on screen across
// turns until hidden, takes at most `maxRows` rows (a `+N more` row when cut) and draws every
// row in one terminal row. While focused, ↑/↓ select a row, Enter asks `onOpen` to open that
// session's view and Esc gives the keys back to the prompt (the panel stays).
import { Box, Text } from 'ink';
import { useRefState } from '../keys/ref-state.js';
import { childPhase, descendantsOf, sessionLabel } from '../state/selectors.js';
import type { SessionNode, UiState } from '../state/types.js';
import { toolSummary } from '../components/transcript/tool-summary.js';
import { formatElapsed } from '../components/tree/status.js';
import { useKeys } from '../keys/key-router.js';
import { displayWidth, oneLine, truncate } from '../render/text.js';
import { roleColor, SPINNER_FRAMES, GLYPHS } from '../theme.js';

export type LiveAgentState = 'queued' | 'starting' | 'running' | 'idle';

export interface LiveAgent {
  id: string;
  /** `explore (Find routes)`; a grandchild is named with its parent: `general (Audit) › explore (Scan)`. */
  label: string;
  agent: string;
  state: LiveAgentState;
  /** Since it first ran; undefined while it has not. */
  elapsedMs: number | undefined;
  /** What it does or did last, one line; '' when nothing yet. */
  activity: string;
}

/** Every live session under `rootId`, depth first in creation order (the tree's own order). */
export function liveAgents(state: UiState, rootId: string, now: number): LiveAgent[] {
  const out: LiveAgent[] = [];
  for (const node of descendantsOf(state, rootId)) {
    const live = childPhase(node) ?? (node.status === 'idle' ? 'idle' : undefined);
    if (!live) continue;
    out.push({
      id: node.id,
      label: labelUnder(state, node, rootId),
      agent: node.agent,
      state: live,
      elapsedMs: node.startedAt !== undefined ? now - node.startedAt : undefined,
      activity: latestActivity(state, node),
    });
  }
  return out;
}

function labelUnder(state: UiState, node: SessionNode, rootId: string): string {
  const below = node.path.slice(node.path.indexOf(rootId) + 1);
  return below
    .map((id) => state.sessions[id])
    .filter((s): s is SessionNode => s !== undefined)
    .map(sessionLabel)
    .join(' › ');
}

/** The tool call it runs (or ran last), else the last line it wrote; `thinking…` while it thinks. */
export function latestActivity(state: UiState, node: SessionNode): string {
  if (node.thinking) return 'thinking…';
  const items = state.items[node.id] ?? [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'tool') return `${item.done ? (item.isError ? '✗' : '⎿') : '›'} ${oneLine(toolSummary(item))}`;
    if (item.kind === 'assistant' || item.kind === 'notice' || item.kind === 'error') {
      const text = item.kind === 'error' ? item.message : item.text;
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      const last = lines[lines.length - 1];
      if (last) return oneLine(last);
    }
    if (item.kind === 'user') return `‹ ${oneLine(item.text)}`;
  }
  return '';
}

/** Rows the panel takes for `count` live agents within `maxRows`: a title row, then one per agent. */
export function agentsPanelRows(count: number, maxRows: number): number {
  return Math.min(1 + Math.max(1, count), Math.max(2, maxRows));
}

/** How many rows the panel may take on a terminal `rows` tall: a third of it, at most 9. */
export function agentsPanelBudget(rows: number): number {
  return Math.max(2, Math.min(9, Math.floor(rows / 3)));
}

export interface AgentsPanelProps {
  agents: readonly LiveAgent[];
  now: number;
  width: number;
  maxRows: number;
  /** The panel has the keys (↑/↓, Enter, Esc). */
  focused: boolean;
  /** The key that hides it, for its title: `ctrl+x a`. */
  toggleKey: string;
  onOpen: (sessionId: string) => void;
  onBlur: () => void;
}

export function AgentsPanel({ agents, now, width, maxRows, focused, toggleKey, onOpen, onBlur }: AgentsPanelProps) {
  const muted = roleColor('muted');
  // Read by the key handler synchronously: `↓ Enter` in one write opens the second row. The
  // selection follows its agent while others come and go; it falls back to the first row.
  const [getSelectedId, setSelectedId] = useRefState<string | undefined>(undefined);
  const indexOf = () => Math.max(0, agents.findIndex((a) => a.id === getSelectedId()));
  const current = indexOf();
  const room = Math.max(1, agentsPanelRows(agents.length, maxRows) - 1);
  const top = Math.max(0, Math.min(current - room + 1, agents.length - room));
  // The last row says how many more there are when the panel cannot list them all.
  const listed = agents.length > room ? room - 1 : room;
  const shown = agents.slice(top, top + Math.max(1, listed));
  const hidden = agents.length - shown.length;
  useKeys(
    (input, key) => {
      const at = indexOf();
      if (key.escape) onBlur();
      else if (key.upArrow || input === 'k') setSelectedId(agents[Math.max(0, at - 1)]?.id);
      else if (key.downArrow || input === 'j') setSelectedId(agents[Math.min(agents.length - 1, at + 1)]?.id);
      else if (key.return && agents[at]) onOpen(agents[at].id);
    },
    { isActive: focused },
  );
  const count = `Sub-agents · ${agents.length} live`;
  // A narrow screen keeps the count and the key that matters most.
  const title =
    width < 80
      ? focused
        ? `${count} · Enter opens · Esc back`
        : `${count} · ${toggleKey} to pick`
      : focused
        ? `${count} · ↑↓ Enter opens · Esc back to the prompt · ${toggleKey} hides`
        : `${count} · ${toggleKey} to pick · again hides`;
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text color={focused ? undefined : muted} bold={focused} wrap="truncate-end">
        {truncate(`── ${title} ${'─'.repeat(width)}`, width)}
      </Text>
      {agents.length === 0 ? (
        <Text color={muted} wrap="truncate-end">
          No sub-agents are running.
        </Text>
      ) : (
        shown.map((agent, i) => {
          const selected = focused && top + i === current;
          return (
            <Text key={agent.id} wrap="truncate-end" inverse={selected}>
              {agentRow(agent, now, width, selected)}
            </Text>
          );
        })
      )}
      {hidden > 0 && agents.length > 0 ? <Text color={muted}>{`  +${hidden} more${focused ? ' (↑↓ scrolls)' : ''}`}</Text> : null}
    </Box>
  );
}

const STATE_GLYPHS: Record<LiveAgentState, string> = { queued: GLYPHS.queued, starting: '', running: '', idle: GLYPHS.idle };

/** `› ⠋ explore (Find routes) · running 12s · › bash npm test`, cut to `width` cells. */
export function agentRow(agent: LiveAgent, now: number, width: number, selected: boolean): string {
  const spinner = SPINNER_FRAMES[Math.floor(now / 80) % SPINNER_FRAMES.length] ?? '';
  const glyph = STATE_GLYPHS[agent.state] || spinner;
  const elapsed = agent.elapsedMs !== undefined && agent.state !== 'queued' ? ` ${formatElapsed(agent.elapsedMs)}` : '';
  const head = `${selected ? '›' : ' '} ${glyph} `;
  const status = ` · ${agent.state}${elapsed}`;
  const activity = agent.activity ? ` · ${agent.activity}` : '';
  const left = width - head.length - status.length;
  // The activity keeps up to half the room; the label gets the rest.
  const label = truncate(agent.label, Math.max(6, left - Math.min(displayWidth(activity), Math.floor(left / 2))));
  return truncate(`${head}${label}${status}${activity}`, width);
}
