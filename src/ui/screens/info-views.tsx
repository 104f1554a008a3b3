// Read-only panels opened by /help and /agents; Esc or Enter closes them.
import { Box, Text } from 'ink';
import type { AgentDefinition } from '../../core/agents/index.js';
import type { ReactNode } from 'react';
import { useKeys } from '../keys/key-router.js';
import { createKeymap, type KeybindConfig } from '../keys/keymap.js';
import type { NamedItem } from '../components/input/completion.js';
import { agentColor, roleColor } from '../theme.js';

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{title}</Text>
      {children}
      <Text color={roleColor('muted')}>Esc closes</Text>
    </Box>
  );
}

function useClose(onClose: () => void): void {
  useKeys((input, key) => {
    if (key.escape || key.return || input === 'q') onClose();
  });
}

const ACTION_LABELS: Record<string, string> = {
  session_child_cycle: 'next sub-agent session',
  session_child_cycle_reverse: 'previous sub-agent session',
  session_parent: 'back to the parent session',
  session_child_first: 'enter the first sub-agent session',
  session_list: 'session picker',
};

export function HelpView({ keymap, commands, onClose }: { keymap?: KeybindConfig | undefined; commands: readonly NamedItem[]; onClose: () => void }) {
  useClose(onClose);
  const keys = createKeymap(keymap ?? {}).describe();
  return (
    <Panel title="Help">
      <Text bold>Keys</Text>
      {keys.map((k) => (
        <Text key={k.action}>
          {'  '}
          {k.keys.join(', ').padEnd(16)} {ACTION_LABELS[k.action] ?? k.action}
        </Text>
      ))}
      <Text>{'  '}Esc              interrupt the running turn</Text>
      <Text>{'  '}Ctrl+C ×2        quit (once clears the input)</Text>
      <Text>{'  '}Tab              cycle primary agents</Text>
      <Text>{'  '}Ctrl+O           more or less tool-call detail</Text>
      <Text>{'  '}Up/Down          input history</Text>
      <Text>{'  '}Shift+Enter      new line</Text>
      <Box marginTop={1}>
        <Text bold>Commands</Text>
      </Box>
      {commands.map((c) => (
        <Text key={c.name}>
          {'  '}/{c.name.padEnd(15)} {c.description ?? ''}
        </Text>
      ))}
    </Panel>
  );
}

export function AgentsView({ primary, subagents, onClose }: { primary: AgentDefinition[]; subagents: AgentDefinition[]; onClose: () => void }) {
  useClose(onClose);
  const row = (a: AgentDefinition) => (
    <Text key={a.name}>
      {'  '}
      <Text color={agentColor(a.name, a.color)}>{a.name.padEnd(12)}</Text> <Text color={roleColor('muted')}>{a.description}</Text>
    </Text>
  );
  return (
    <Panel title="Agents">
      <Text bold>Primary (Tab cycles)</Text>
      {primary.map(row)}
      <Box marginTop={1}>
        <Text bold>Sub-agents (the task tool, or @name at the prompt)</Text>
      </Box>
      {subagents.map(row)}
    </Panel>
  );
}
