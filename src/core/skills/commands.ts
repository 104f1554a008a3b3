// Skills as slash commands (Claude Code's `user-invocable`, on by default): `/<skill> args`
// sends the skill's instructions with the arguments, with its `model:`, and — for
// `context: fork` — as a subtask of its `agent:` (default `general`), so it works on its own.
// A command file or config entry of the same name, or a built-in command, wins; the skill is
// then reachable through the `skill` tool only, and a warning says so.
import { BUILTIN_COMMANDS, type CommandDefinition } from '../commands/definition.js';
import type { ProjectNarrowing } from '../trust/narrow.js';
import type { SkillDefinition } from './definition.js';

export function skillCommand(skill: SkillDefinition): CommandDefinition {
  const header = `Skill "${skill.name}" — folder: ${skill.dir}\nPaths in these instructions are relative to that folder.`;
  return {
    name: skill.name,
    template: `${header}\n\n${skill.body || skill.description}`,
    description: skill.description,
    source: skill.file,
    skill: skill.name,
    ...(skill.model ? { model: skill.model } : {}),
    ...(skill.fork ? { agent: skill.fork.agent, subtask: true } : {}),
  };
}

/** Adds a command for each user-invocable skill to `commands`; returns warnings for the ones a namesake hides. */
export function addSkillCommands(
  skills: Iterable<SkillDefinition>,
  commands: Map<string, CommandDefinition>,
  narrowing: ProjectNarrowing | undefined,
): Array<{ source: string; message: string }> {
  const warnings: Array<{ source: string; message: string }> = [];
  const builtins = new Set(BUILTIN_COMMANDS.map((c) => c.name));
  for (const skill of skills) {
    if (skill.userInvocable === false) continue;
    const taken = commands.get(skill.name);
    if (taken || builtins.has(skill.name)) {
      warnings.push({ source: skill.file, message: `skill "${skill.name}" is not a slash command: /${skill.name} is ${taken ? `the command of ${taken.source}` : 'a built-in command'}; the model can still load it.` });
      continue;
    }
    // A project skill's `!`cmd`` lines run nothing until the project is trusted, as a project command's.
    const command = skillCommand(skill);
    const marked = skill.origin === 'project' && narrowing ? narrowing.command(command) : command;
    narrowing?.noteCommand(marked);
    commands.set(skill.name, marked);
  }
  return warnings;
}
