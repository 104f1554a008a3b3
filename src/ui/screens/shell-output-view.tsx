// One background command's output, live (`/shells`, Enter on a shell). Contract: it asks the
// core to follow the shell (`watchShell`: its newest output, then each chunk) while it is on
// screen and stops following when it goes; it shows the last lines that fit in `maxRows`, each
// cut to one row and terminal-safe, and says when the shell has ended and how (from the
// `shell.exited` event). Esc, `q` or Enter go back to the list; `k` stops the shell.
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { errorMessage } from '../../core/errors.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { UiCore } from '../core-api.js';
import { useKeys } from '../keys/key-router.js';
import { truncate } from '../render/text.js';
import { roleColor } from '../theme.js';

/** Border (2), title and footer rows around the output. */
const CHROME_ROWS = 4;
/** Characters of output kept on screen: enough for any terminal's height of lines. */
const KEPT_CHARS = 64 * 1024;

export interface ShellOutputViewProps {
  core: UiCore;
  sessionId: string;
  shellId: string;
  command: string;
  /** Who started it, as the screen names sessions. */
  label: string;
  width: number;
  maxRows?: number | undefined;
  onStop: () => void;
  onBack: () => void;
}

export function ShellOutputView({ core, sessionId, shellId, command, label, width, maxRows, onStop, onBack }: ShellOutputViewProps) {
  const muted = roleColor('muted');
  const [output, setOutput] = useState('');
  const [ended, setEnded] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!core.watchShell) {
      setProblem('This front end cannot show a shell\'s output.');
      return;
    }
    let watch: ReturnType<NonNullable<UiCore['watchShell']>> | undefined;
    try {
      watch = core.watchShell(sessionId, shellId, (text) => setOutput((o) => (o + text).slice(-KEPT_CHARS)));
      setOutput(watch.output.slice(-KEPT_CHARS));
      if (!watch.running) setEnded('ended');
    } catch (err) {
      setProblem(errorMessage(err));
    }
    const off = core.on((e) => {
      if (e.type !== 'shell.exited' || e.session_id !== sessionId || e.shell_id !== shellId) return;
      setEnded(e.reason === 'killed' ? 'stopped' : e.signal ? `ended by ${e.signal}` : `exited with code ${e.exit_code ?? '?'}`);
    });
    return () => {
      off();
      watch?.stop();
    };
  }, [core, sessionId, shellId]);
  useKeys((input, key) => {
    if (key.escape || key.return || input === 'q') onBack();
    else if (input === 'k' && !ended) onStop();
  });
  const room = Math.max(1, (maxRows ?? 20) - CHROME_ROWS);
  const inner = Math.max(10, width - 4);
  const lines = terminalSafe(output).replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const shown = output === '' ? [] : lines.slice(-room);
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
      <Text bold wrap="truncate-end">
        {truncate(`${shellId} · ${terminalSafe(label)} · ${terminalSafe(command.replace(/\s+/g, ' '))}`, inner)}
      </Text>
      {problem ? (
        <Text color={roleColor('error')} wrap="truncate-end">
          {terminalSafe(problem)}
        </Text>
      ) : shown.length === 0 ? (
        <Text color={muted}>No output yet.</Text>
      ) : (
        shown.map((line, i) => (
          <Text key={i} wrap="truncate-end">
            {truncate(line, inner) || ' '}
          </Text>
        ))
      )}
      <Text color={muted} wrap="truncate-end">
        {ended ? `${ended} · Esc back` : `live · k stops it · Esc back${lines.length > room ? ` (last ${room} of ${lines.length} lines)` : ''}`}
      </Text>
    </Box>
  );
}
