// The slash commands an editor offers in its prompt box (`available_commands_update`): the
// ones this server carries out itself (/undo, /redo, /rewind: checkpoint-commands.ts), then the
// project's custom commands from the core (`Engine.commands()`: `.opencode/commands`, the
// `command` config key, /init), which a prompt reaching the core expands. Skills are not
// listed: the model loads them, nobody types them.
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import type { Engine } from '../core/engine.js';
import { CHECKPOINT_COMMANDS } from './checkpoint-commands.js';

export function availableCommands(engine: Pick<Engine, 'commands'>): AvailableCommand[] {
  const own = CHECKPOINT_COMMANDS.map(({ name, description, hint }): AvailableCommand => ({ name, description, ...(hint ? { input: { hint } } : {}) }));
  const taken = new Set(own.map((c) => c.name));
  // A custom command named like one of ours would never run: ours are recognised first.
  const custom = engine
    .commands()
    .filter((c) => !taken.has(c.name))
    .map((c): AvailableCommand => ({
      name: c.name,
      description: c.description ?? `custom command (${c.source})`,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
    }));
  return [...own, ...custom];
}
