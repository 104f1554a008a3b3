// Slash commands in the UI (DESIGN §10): the built-ins it carries out itself, and the menu
// of every command, custom ones from the core included.
import { BUILTIN_COMMANDS, parseSlashInput, unknownCommandMessage, type CommandDefinition, type SlashInput } from '../core/commands/index.js';
import type { NamedItem } from './components/input/completion.js';

export { BUILTIN_COMMANDS };
export type SlashCommand = SlashInput;

/** `/model opus` → { name: 'model', args: 'opus' }; text that is not a command → undefined. */
export const parseSlash = parseSlashInput;

/** The `/` menu: built-ins first, then custom commands with their argument hints. */
export function commandMenu(custom: readonly CommandDefinition[]): NamedItem[] {
  return [
    ...BUILTIN_COMMANDS,
    ...custom.map((c) => {
      const about = [c.argumentHint, c.description].filter(Boolean).join(' — ');
      return { name: c.name, ...(about ? { description: about } : {}) };
    }),
  ];
}

/** Why a typed command cannot run, or undefined when it names a known command. */
export function unknownCommand(name: string, menu: readonly NamedItem[]): string | undefined {
  if (menu.some((c) => c.name === name)) return undefined;
  return unknownCommandMessage(
    name,
    menu.map((c) => c.name),
  );
}
