// First run without credentials: say exactly what to set for the provider the run starts on
// (Anthropic unless `-m` or the config's model names another), and offer the offline demo.
// Laid out for the terminal's width: each sentence is one paragraph that Ink wraps between
// words, so no line breaks in the middle of a sentence where a wider screen had room.
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { roleColor } from '../theme.js';

export interface NoKeyScreenProps {
  onChoice: (choice: 'demo' | 'quit') => void;
  /** The provider the run starts on; `anthropic` when not given. */
  provider?: string;
  /** For another provider: the sentence naming its key (credentialProblem in core/provider/credentials.ts). */
  problem?: string;
  /** Columns to lay out for; the terminal's width when not given. */
  width?: number;
}

/** The box is never wider than this, however wide the terminal. */
const MAX_BOX = 78;

export function NoKeyScreen({ onChoice, provider = 'anthropic', problem, width }: NoKeyScreenProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  // One column spare: a line that fills the last column makes some terminals wrap early.
  const box = Math.max(20, Math.min(MAX_BOX, (width ?? stdout.columns ?? MAX_BOX + 2) - 2));
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
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={box}>
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
      <Text> </Text>
      <Text>Or ANTHROPIC_AUTH_TOKEN for a bearer token.</Text>
      <Text>With ANTHROPIC_BASE_URL for a compatible endpoint, a key is still needed: any placeholder if the endpoint checks none.</Text>
      <Text> </Text>
      <Text>Or give the key in the config:</Text>
      <Text color={roleColor('muted')}>  "provider": {'{'} "anthropic": {'{'} "apiKey": "{'{'}env:MY_KEY{'}'}" {'}'} {'}'}</Text>
    </>
  );
}
