// First run without credentials: say exactly what to set for the provider the run starts on
// (Anthropic unless `-m` or the config's model names another), and offer the offline demo.
import { Box, Text, useApp, useInput } from 'ink';
import { roleColor } from '../theme.js';

export interface NoKeyScreenProps {
  onChoice: (choice: 'demo' | 'quit') => void;
  /** The provider the run starts on; `anthropic` when not given. */
  provider?: string;
  /** For another provider: the sentence naming its key (credentialProblem in core/provider/credentials.ts). */
  problem?: string;
}

export function NoKeyScreen({ onChoice, provider = 'anthropic', problem }: NoKeyScreenProps) {
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
      {provider === 'anthropic' ? (
        <AnthropicKey />
      ) : (
        <>
          <Text bold>opencode-ink needs an API key for provider &quot;{provider}&quot;</Text>
          <Text> </Text>
          <Text>{problem ?? `Set provider.${provider}.apiKey in the config.`}</Text>
          <Text>Set it and start again, or give the key in the config:</Text>
          <Text color={roleColor('muted')}>
            {'  '}&quot;provider&quot;: {'{'} &quot;{provider}&quot;: {'{'} &quot;apiKey&quot;: &quot;{'{'}env:MY_KEY{'}'}&quot; {'}'} {'}'}
          </Text>
        </>
      )}
      <Text> </Text>
      <Text>
        Press <Text bold>d</Text> (or Enter) for the offline scripted demo, <Text bold>q</Text> to quit.
      </Text>
    </Box>
  );
}

function AnthropicKey() {
  return (
    <>
      <Text bold>opencode-ink needs an Anthropic API key</Text>
      <Text> </Text>
      <Text>Set it in your shell and start again:</Text>
      <Text color={roleColor('user')}>  export ANTHROPIC_API_KEY=sk-ant-…</Text>
      <Text>(or ANTHROPIC_AUTH_TOKEN for a bearer token; with ANTHROPIC_BASE_URL for a compatible</Text>
      <Text>endpoint, which still needs a key, any placeholder if it checks none), or in the config:</Text>
      <Text color={roleColor('muted')}>  "provider": {'{'} "anthropic": {'{'} "apiKey": "{'{'}env:MY_KEY{'}'}" {'}'} {'}'}</Text>
    </>
  );
}
