// What a slash command is, wherever it came from (DESIGN §10).
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { once } from '../once.js';
import type { SkillGrant } from '../skills/definition.js';

export interface CommandDefinition {
  /** Typed as `/name`: the file name without `.md`, or the config key. */
  name: string;
  /** The prompt, with `$ARGUMENTS`, `$1`…`$N`, `@path` and `` !`cmd` `` still in it. */
  template: string;
  description?: string;
  /** The agent that runs it; a sub-agent makes it a subtask unless `subtask: false`. */
  agent?: string;
  model?: string;
  subtask?: boolean;
  /** Shown beside the name in the menu, e.g. `<file> [focus]` (Claude Code's `argument-hint`). */
  argumentHint?: string;
  /** The file path, or `config`. */
  source: string;
  /**
   * A project file whose existing text the command must not lose (`/init`: AGENTS.md): checked
   * in code after the turn, which puts the user's lines back if the agent dropped any.
   */
  keeps?: string;
  /** From a project the user has not trusted: its `` !`cmd` `` lines are refused, not run. */
  untrusted?: boolean;
  /** The skill this command starts (skills/commands.ts): its `allowed-tools` apply where it runs. */
  skill?: string;
  /** A command file's `allowed-tools:` as written, one entry each (`Bash(git add:*)`). */
  allowedTools?: string[];
  /**
   * What `allowed-tools` lets run unasked while this command's prompt runs (its `` !`cmd` ``
   * lines and the turn, or the sub-agent of a subtask), read as a skill's are
   * (skills/allowed-tools.ts). Absent for an untrusted project's command (DESIGN §15).
   */
  grants?: SkillGrant[];
}

/**
 * Front-matter of a command file: OpenCode's keys and Claude Code's (`allowed-tools`,
 * `argument-hint`, `disable-model-invocation`). Any other key loads with a warning naming it.
 */
export const CommandFrontMatterSchema = lazySchema(() =>
  z.looseObject({
    description: z.string().optional(),
    agent: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    subtask: z.boolean().optional(),
    'argument-hint': z.union([z.string(), z.array(z.string())]).optional(),
    'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
    'disable-model-invocation': z.boolean().optional(),
  }),
);

/** The keys a command file's front-matter is read for. */
export const commandFields = once((): ReadonlySet<string> => new Set(Object.keys(CommandFrontMatterSchema.shape)));

/** Commands the interactive UI carries out itself; `run` has no use for them. */
export const BUILTIN_COMMANDS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'help', description: 'keys and commands' },
  { name: 'new', description: 'start a new session' },
  { name: 'sessions', description: 'resume an earlier session' },
  { name: 'agents', description: 'list agents and sub-agents' },
  { name: 'mcp', description: 'MCP servers: state and tools' },
  { name: 'model', description: 'switch model: /model <provider/id | sonnet | opus | haiku>' },
  { name: 'agent', description: 'switch primary agent: /agent <name>' },
  { name: 'compact', description: 'summarise older turns to free context: /compact [focus]' },
  { name: 'fork', description: 'a background copy of this conversation works on a task: /fork <prompt>' },
  { name: 'skills', description: 'skills the model can load' },
  { name: 'shells', description: 'background commands that are running' },
  { name: 'tasks', description: "the team's shared task list (also Ctrl+T)" },
  { name: 'undo', description: 'put the files back as before the last prompt and hide that turn' },
  { name: 'redo', description: 're-apply what the last /undo took back' },
  { name: 'rewind', description: 'go back to an earlier prompt: code, conversation or both (also Esc Esc)' },
  { name: 'exit', description: 'quit' },
];

/**
 * Subtask rule, as OpenCode decides it: `subtask: true` always runs in a child session;
 * otherwise a command whose agent is a sub-agent does, unless it says `subtask: false`.
 */
export function isSubtask(command: Pick<CommandDefinition, 'subtask'>, agentMode: 'primary' | 'subagent' | 'all' | undefined): boolean {
  if (command.subtask !== undefined) return command.subtask;
  return agentMode === 'subagent';
}
