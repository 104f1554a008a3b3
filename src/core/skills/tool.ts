// The `skill` tool (DESIGN §5, §20). Progressive disclosure: its description lists each
// skill's name and description, and only a call loads a skill's instructions, returned with
// the skill's absolute folder so the model can read the files beside SKILL.md.
//
// Contract
// - The listing is sorted by name and bounded: each description is cut at
//   MAX_DESCRIPTION_CHARS, and once the listing reaches MAX_LISTING_CHARS the remaining skills
//   are named without descriptions (up to MAX_NAMES_CHARS more), then only counted. Every
//   skill stays loadable by name whether or not it was listed in full.
// - `skill {name}` asks the `skill` permission with the name as pattern (allowed by default;
//   `permission.skill` rules can deny some). An unknown name is an error result naming the
//   closest names, else the available ones.
// - A loaded skill becomes active in the calling session: its `allowed-tools` settle that
//   session's asks from then on (`SkillRuns.activate`, permission/gate.ts).
// - A `context: fork` skill is not loaded into the caller: it runs as a sub-agent of its
//   `agent` (with its `model`), given the instructions its slash command sends (with
//   `arguments` in place of `$ARGUMENTS`), through the same `task` machinery; the result is
//   the sub-agent's report, as a `task` call's. Its `allowed-tools` apply in that sub-agent.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { closeMatches } from '../commands/parse.js';
import { renderTemplate } from '../commands/template.js';
import type { RunTask } from '../subagents/task-tool.js';
import type { Message, ToolUsePart } from '../messages.js';
import { defineTool, ToolError, type Tool } from '../tools/types.js';
import { skillCommand } from './commands.js';
import type { SkillDefinition } from './definition.js';

export const SKILL_TOOL = 'skill';
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_LISTING_CHARS = 16_000;
const MAX_NAMES_CHARS = 4_000;

const parameters = lazySchema(() =>
  z.object({
    name: z.string().min(1).describe('The skill to load, exactly as listed.'),
    arguments: z
      .string()
      .max(20_000)
      .optional()
      .describe('What the skill should work on, as a user would type it after /<name> (e.g. a file, an issue number). Matters most for skills marked "runs as a sub-agent", which see nothing else of this conversation.'),
  }),
);

/** What the tool does beyond returning instructions; the engine gives it per session. */
export interface SkillRuns {
  /** The skill was loaded in the calling session: its `allowed-tools` apply there from now on. */
  activate(skill: SkillDefinition): void;
  /** Starts a sub-agent as the `task` tool does (refusing where this session cannot start any). */
  runTask: RunTask;
  /** Told before `runTask` that the call runs this `context: fork` skill, so its sub-agent gets its `allowed-tools`. */
  forking(skill: SkillDefinition, callId: string): void;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DESCRIPTION_CHARS ? `${flat.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : flat;
}

/** The tool's description: what skills are, how to use them, and the bounded listing. */
export function skillListing(skills: readonly SkillDefinition[]): string {
  const sorted = [...skills].sort((a, b) => a.name.localeCompare(b.name));
  const intro = [
    'Loads a skill: instructions for a kind of task, often with scripts, templates or references in its folder.',
    'When the task at hand matches a skill below, call this tool with the skill\'s name before starting, then follow the instructions it returns.',
    'The result gives the skill\'s folder; files the instructions mention are relative to it (read them with the read tool). Do not load a skill that is not listed.',
    '',
    'Available skills:',
  ].join('\n');
  const lines: string[] = [];
  let size = intro.length;
  let index = 0;
  for (; index < sorted.length; index++) {
    const skill = sorted[index]!;
    const line = `- ${skill.name}: ${oneLine(skill.description)}${skill.fork ? ' (runs as a sub-agent; pass what it should work on as arguments)' : ''}`;
    if (size + line.length + 1 > MAX_LISTING_CHARS) break;
    lines.push(line);
    size += line.length + 1;
  }
  const rest = sorted.slice(index).map((skill) => skill.name);
  if (rest.length > 0) {
    const named: string[] = [];
    let namesSize = 0;
    for (const name of rest) {
      if (namesSize + name.length + 2 > MAX_NAMES_CHARS) break;
      named.push(name);
      namesSize += name.length + 2;
    }
    const unnamed = rest.length - named.length;
    lines.push(`Also available (descriptions left out for space): ${named.join(', ')}${unnamed > 0 ? `, and ${unnamed} more` : ''}.`);
  }
  return `${intro}\n${lines.join('\n')}`;
}

/** The skill a call names: exactly, else the one whose name differs only in case (models sometimes change it). */
export function findSkill(skills: readonly SkillDefinition[], name: string): SkillDefinition | undefined {
  const wanted = name.trim();
  return skills.find((s) => s.name === wanted) ?? skills.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
}

/** The name a `skill` call asked for, or undefined for another tool or a malformed input. */
function calledName(part: ToolUsePart): string | undefined {
  if (part.name !== SKILL_TOOL || typeof part.input !== 'object' || part.input === null) return undefined;
  const name = (part.input as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * What a stored conversation did with this tool, for a session opened again (a resume, a
 * restart): the names its successful calls loaded, oldest first, and the name each call asked
 * for by call id (a forked skill's sub-agent finds its skill by the call that started it).
 */
export function skillCalls(history: readonly Message[]): { loaded: string[]; byCall: Map<string, string> } {
  const byCall = new Map<string, string>();
  const failed = new Set<string>();
  const order: string[] = [];
  for (const message of history) {
    for (const part of message.content) {
      if (part.type === 'tool_use') {
        const name = calledName(part);
        if (name === undefined) continue;
        byCall.set(part.id, name);
        order.push(part.id);
      } else if (part.type === 'tool_result' && part.is_error) {
        failed.add(part.tool_use_id);
      }
    }
  }
  return { loaded: order.filter((id) => !failed.has(id)).map((id) => byCall.get(id)!), byCall };
}

function unknownSkill(name: string, names: readonly string[]): string {
  const near = closeMatches(name, names);
  if (near.length > 0) return `Unknown skill "${name}". Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`;
  const shown = [...names].sort().slice(0, 30);
  const more = names.length > shown.length ? `, and ${names.length - shown.length} more` : '';
  return `Unknown skill "${name}". Available skills: ${shown.join(', ')}${more}.`;
}

/** The `skill` tool over these skills (at least one: with none, offer no tool). */
export function createSkillTool(skills: readonly SkillDefinition[], runs?: SkillRuns): Tool<typeof parameters> {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const forks = skills.some((skill) => skill.fork !== undefined);
  return defineTool({
    name: SKILL_TOOL,
    description: skillListing(skills),
    parameters,
    // A forked skill's sub-agent may change things; it records its own changes, as a task's does.
    readOnly: !forks,
    fileChanges: 'reported',
    async execute(args, ctx) {
      const skill = findSkill(skills, args.name);
      if (!skill) throw new ToolError(unknownSkill(args.name.trim(), [...byName.keys()]));
      await ctx.ask({ permission: SKILL_TOOL, patterns: [skill.name], subject: `Load the skill "${skill.name}"` });
      if (skill.fork) {
        if (!runs) throw new ToolError(`Skill "${skill.name}" runs as a sub-agent (context: fork), and sub-agents cannot be started here; do the task without it.`);
        runs.forking(skill, ctx.callId);
        return runs.runTask(
          {
            description: `/${skill.name}`,
            prompt: renderTemplate(skillCommand(skill).template, args.arguments ?? ''),
            subagent_type: skill.fork.agent,
            ...(skill.model ? { model: skill.model } : {}),
          },
          ctx,
        );
      }
      runs?.activate(skill);
      const header = `Skill "${skill.name}" — folder: ${skill.dir}\nPaths in these instructions are relative to that folder.`;
      const given = args.arguments?.trim() ? `\n\nArguments: ${args.arguments.trim()}` : '';
      return {
        output: `${header}\n\n${skill.body || '(This skill has no instructions beyond its description.)'}${given}`,
        metadata: { skill: skill.name, folder: skill.dir },
      };
    },
  });
}
