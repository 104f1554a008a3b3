// First run without credentials: say exactly what to set, and offer the offline demo.
import { Box, Text, useApp, useInput } from 'ink';
import { roleColor } from '../theme.js';

export function NoKeyScreen({ onChoice }: { onChoice: (choice: 'demo' | 'quit') => void }) {
  const { exit } = useApp();
  useInput((input, key) => {
    if (input === 'd' || key.return) {
      onChoice('demo');
      exit();
    } else if (input === 'q' || key.escape || (key.ctrl && input === 'c')) {
      onChoice('quit');
      exit();
    }
  });
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={78}>
      <Text bold>opencode-ink needs an Anthropic API key</Text>
      <Text> </Text>
      <Text>Set it in your shell and start again:</Text>
      <Text color={roleColor('user')}>  export ANTHROPIC_API_KEY=sk-ant-…</Text>
      <Text>(or ANTHROPIC_AUTH_TOKEN for a bearer token; with ANTHROPIC_BASE_URL for a compatible</Text>
      <Text>endpoint, which still needs a key, any placeholder if it checks none), or in the config:</Text>
      <Text color={roleColor('muted')}>  "provider": {'{'} "anthropic": {'{'} "apiKey": "{'{'}env:MY_KEY{'}'}" {'}'} {'}'}</Text>
      <Text> </Text>
      <Text>
        Press <Text bold>d</Text> (or Enter) for the offline scripted demo, <Text bold>q</Text> to quit.
      </Text>
    </Box>
  );
}
