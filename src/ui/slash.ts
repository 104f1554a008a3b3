// The built-in slash commands (DESIGN §10): parsing and the catalogue shown in the `/` menu.
import type { NamedItem } from './components/input/completion.js';

export const BUILTIN_COMMANDS: readonly NamedItem[] = [
  { name: 'help', description: 'keys and commands' },
  { name: 'new', description: 'start a new session' },
  { name: 'sessions', description: 'resume an earlier session' },
  { name: 'agents', description: 'list agents and sub-agents' },
  { name: 'model', description: 'switch model: /model <provider/id | sonnet | opus | haiku>' },
  { name: 'agent', description: 'switch primary agent: /agent <name>' },
  { name: 'exit', description: 'quit' },
];

export interface SlashCommand {
  name: string;
  args: string;
}

/** `/model opus` → { name: 'model', args: 'opus' }; text that is not a command → undefined. */
export function parseSlash(text: string): SlashCommand | undefined {
  const match = /^\/([\w:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? '').trim() };
}
