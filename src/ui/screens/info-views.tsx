// Read-only panels opened by /help, /agents, /skills and /mcp; Esc or Enter closes them. Each line is one
// row, and a panel taller than the rows it is given scrolls with Up/Down, so it never
// pushes the screen past the terminal's height.
import { Box, Text } from 'ink';
import type { AgentDefinition } from '../../core/agents/index.js';
import { mcpStateLines } from '../../core/mcp/format.js';
import type { McpServerState, SessionMcpServers } from '../../core/mcp/manager.js';
import type { SkillCatalogue } from '../../core/skills/index.js';
import { useState, type ReactElement } from 'react';
import { useKeys } from '../keys/key-router.js';
import { createKeymap, type KeybindConfig } from '../keys/keymap.js';
import type { NamedItem } from '../components/input/completion.js';
import { agentColor, roleColor } from '../theme.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';

/** Border (2), title and footer rows around a panel's lines. */
export const PANEL_CHROME_ROWS = 4;

function Panel({ title, lines, maxRows, onClose }: { title: string; lines: ReactElement[]; maxRows?: number | undefined; onClose: () => void }) {
  const room = Math.max(1, (maxRows ?? Number.POSITIVE_INFINITY) - PANEL_CHROME_ROWS);
  const scrolls = lines.length > room;
  const [offset, setOffset] = useState(0);
  const top = Math.min(offset, Math.max(0, lines.length - room));
  useKeys((input, key) => {
    if (key.escape || key.return || input === 'q') onClose();
    else if (scrolls && key.upArrow) setOffset(Math.max(0, top - 1));
    else if (scrolls && key.downArrow) setOffset(Math.min(lines.length - room, top + 1));
  });
  const shown = scrolls ? lines.slice(top, top + room) : lines;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
      <Text bold>{title}</Text>
      {shown}
      <Text color={roleColor('muted')}>{scrolls ? `↑↓ more (${top + 1}–${top + shown.length} of ${lines.length}) · Esc closes` : 'Esc closes'}</Text>
    </Box>
  );
}

const ACTION_LABELS: Record<string, string> = {
  session_child_cycle: 'next sub-agent session',
  session_child_cycle_reverse: 'previous sub-agent session',
  session_parent: 'back to the parent session',
  session_child_first: 'enter the first sub-agent session',
  session_list: 'session picker',
  session_child_cancel: 'cancel the sub-agent whose view is open (its parent goes on)',
  session_child_revert: "revert the finished sub-agent whose view is open, or the selected one (its sub-agents' changes too)",
  session_child_select: 'select a sub-agent block: ↑/↓ move, Enter opens, u reverts, o shows its diff, Esc leaves',
  team_tasks: "the team's task list: ↑/↓ move, Enter opens the owner, Esc closes",
  agents_panel: 'show / hide the panel of live sub-agents and teammates (↑/↓, Enter opens, Esc back to the prompt)',
};

const FIXED_KEYS: ReadonlyArray<[string, string]> = [
  ['Esc', 'interrupt the running turn'],
  ['Esc Esc', 'rewind to an earlier prompt (on an empty prompt, no turn running)'],
  ['Ctrl+C ×2', 'quit (once clears the input)'],
  ['Tab', 'cycle primary agents'],
  ['Shift+Tab', 'cycle the permission mode (default, acceptEdits, plan)'],
  ['Ctrl+O', 'more or less tool-call detail'],
  ['Ctrl+B', 'send the running sub-agents of this view to the background (in a sub-agent\'s view: that one); with none, cursor left'],
  ['Up/Down', 'input history'],
  ['Alt+B/F Ctrl+←/→', 'move by word'],
  ['Ctrl+W  Alt+D', 'delete the word before / after'],
  ['Ctrl+U  Ctrl+K', 'delete to line start / end'],
  ['Shift+Enter', 'new line (terminals with the kitty keyboard protocol)'],
  ['\\+Enter', 'new line (any terminal; also Ctrl+J, Alt+Enter)'],
];

function line(key: string, children: ReactElement | string): ReactElement {
  return (
    <Text key={key} wrap="truncate-end">
      {children}
    </Text>
  );
}

interface PanelProps {
  onClose: () => void;
  /** Rows the panel may take, border included; it scrolls beyond. */
  maxRows?: number | undefined;
}

export function HelpView({ keymap, commands, onClose, maxRows }: PanelProps & { keymap?: KeybindConfig | undefined; commands: readonly NamedItem[] }) {
  const keys = createKeymap(keymap ?? {}).describe();
  const lines = [
    line('keys', <Text bold>Keys</Text>),
    ...keys.map((k) => line(`k:${k.action}`, `  ${k.keys.join(', ').padEnd(16)} ${ACTION_LABELS[k.action] ?? k.action}`)),
    ...FIXED_KEYS.map(([k, what]) => line(`f:${k}`, `  ${k.padEnd(16)} ${what}`)),
    line('gap', ' '),
    line('commands', <Text bold>Commands</Text>),
    ...commands.map((c) => line(`c:${c.name}`, `  /${c.name.padEnd(15)} ${terminalSafe(c.description ?? '')}`)),
  ];
  return <Panel title="Help" lines={lines} maxRows={maxRows} onClose={onClose} />;
}

export function AgentsView({ primary, subagents, onClose, maxRows }: PanelProps & { primary: AgentDefinition[]; subagents: AgentDefinition[] }) {
  const row = (prefix: string) => (a: AgentDefinition) =>
    line(
      `${prefix}:${a.name}`,
      <Text>
        {'  '}
        <Text color={agentColor(a.name, a.color)}>{a.name.padEnd(12)}</Text> <Text color={roleColor('muted')}>{terminalSafe(a.description)}</Text>
      </Text>,
    );
  const lines = [
    line('primary', <Text bold>Primary (Tab cycles)</Text>),
    ...primary.map(row('p')),
    line('gap', ' '),
    line('sub', <Text bold>Sub-agents (the task tool, or @name at the prompt)</Text>),
    ...subagents.map(row('s')),
  ];
  return <Panel title="Agents" lines={lines} maxRows={maxRows} onClose={onClose} />;
}

/** `/skills`: every skill by name with its description and folder, then why others were not loaded. */
export function SkillsView({ catalogue, onClose, maxRows }: PanelProps & { catalogue: SkillCatalogue | undefined }) {
  const skills = [...(catalogue?.skills.values() ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const problems = catalogue?.warnings ?? [];
  const lines: ReactElement[] =
    skills.length === 0
      ? [line('none', 'No skills found (folders with a SKILL.md in .claude/skills, .opencode/skills, ~/.claude/skills or the config dir\'s skills).')]
      : skills.flatMap((skill) => [
          line(
            `s:${skill.name}`,
            <Text>
              {'  '}
              <Text bold>{skill.name.padEnd(20)}</Text> <Text color={roleColor('muted')}>{terminalSafe(skill.description)}</Text>
            </Text>,
          ),
          line(`d:${skill.name}`, <Text color={roleColor('muted')}>{`  ${''.padEnd(20)} ${skill.origin} · ${terminalSafe(skill.dir)}`}</Text>),
        ]);
  if (problems.length > 0) {
    lines.push(line('gap', ' '), line('problems', <Text bold>Not loaded</Text>));
    problems.forEach((w, i) => lines.push(line(`w:${i}`, `  ${terminalSafe(w.source)}: ${terminalSafe(w.message)}`)));
  }
  return <Panel title="Skills" lines={lines} maxRows={maxRows} onClose={onClose} />;
}

/**
 * `/mcp`: each configured server's state and tools (`states` is undefined while they start),
 * then the own servers of each live session whose agent file defines some, under that agent and session.
 */
export function McpView({
  states,
  agentStates = [],
  onClose,
  maxRows,
}: PanelProps & { states: readonly McpServerState[] | undefined; agentStates?: readonly SessionMcpServers[] }) {
  const serverLines = (state: McpServerState, key: string, indent: string) =>
    mcpStateLines(state).map((text, j) => line(`${key}:${j}`, j === 0 ? <Text bold>{indent + text}</Text> : indent + text));
  let lines: ReactElement[];
  if (!states) lines = [line('starting', 'Starting MCP servers…')];
  else if (states.length === 0 && agentStates.length === 0)
    lines = [line('none', 'No MCP servers configured (the "mcp" key of .opencoderc.json, or a trusted project\'s .mcp.json).')];
  else {
    lines = states.flatMap((state, i) => [...(i > 0 ? [line(`gap:${state.name}`, ' ')] : []), ...serverLines(state, state.name, '')]);
    for (const owner of agentStates) {
      if (lines.length > 0) lines.push(line(`gap:${owner.session_id}`, ' '));
      lines.push(line(`owner:${owner.session_id}`, <Text bold>{`agent ${terminalSafe(owner.agent)} · session ${owner.session_id}`}</Text>));
      owner.servers.forEach((state) => lines.push(...serverLines(state, `${owner.session_id}:${state.name}`, '  ')));
    }
  }
  return <Panel title="MCP servers" lines={lines} maxRows={maxRows} onClose={onClose} />;
}

