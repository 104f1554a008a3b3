// What a prompt asks for, decided before any model call (DESIGN §10): a plain message (with
// the files it mentions attached), a custom command rendered into a message, or a
// sub-agent task run at once — from a subtask command, or from `@<subagent> text`.
import type { AgentDefinition } from './agents/index.js';
import {
  attachMentions,
  BUILTIN_COMMANDS,
  expandShell,
  isSubtask,
  parseMention,
  parseSlashInput,
  renderTemplate,
  shellInlines,
  unknownCommandMessage,
  type CommandDefinition,
  type InlineIo,
} from './commands/index.js';
import { ConfigError, errorMessage, RunError, sentence } from './errors.js';
import { imageLabel } from './images/label.js';
import { pastedImagePath } from './images/pasted-path.js';
import type { ImagePart } from './messages.js';

export type PromptPlan =
  | {
      kind: 'message';
      text: string;
      /** Pictures that go with the text: `@shot.png` mentions, or the pasted path of an image (DESIGN §22). */
      images: ImagePart[];
      /** A command's agent other than the session's: it runs this turn. */
      agent?: string;
      model?: string;
      /** The command's file whose user text must survive the turn (`/init`: AGENTS.md). */
      keeps?: { file: string; command: string };
      /** The skill the command starts: active in the session from this turn on. */
      skill?: string;
    }
  | {
      kind: 'subtask';
      agent: string;
      prompt: string;
      description: string;
      model?: string;
      command?: string;
      /** The skill the command runs (`context: fork`): active in the sub-agent. */
      skill?: string;
    };

export interface PlanContext {
  commands: ReadonlyMap<string, CommandDefinition>;
  agents: ReadonlyMap<string, AgentDefinition>;
  /** Sub-agents `task` may start (the names `@mention` recognises). */
  subagents: readonly string[];
  /** The session's agent: it runs commands that name none. */
  currentAgent: string;
  /** `@path` may attach files inside this folder only. */
  projectRoot: string;
  /** Runs `@file` and `` !`cmd` `` through the session's tools and permissions. */
  io: InlineIo;
  /** Reads, prepares and stores the image file the user pasted the path of. */
  attachImageFile(file: string): Promise<ImagePart>;
}

export async function planPrompt(text: string, ctx: PlanContext): Promise<PromptPlan> {
  const slash = parseSlashInput(text);
  if (slash) return planCommand(slash.name, slash.args, ctx);
  const mention = parseMention(text, ctx.subagents);
  if (mention) {
    const prompt = await attachForTask(mention.prompt, ctx, `@${mention.agent}`);
    return { kind: 'subtask', agent: mention.agent, prompt, description: firstWords(mention.prompt) };
  }
  const pasted = pastedImagePath(text, ctx.io.cwd);
  if (pasted) {
    try {
      return { kind: 'message', text, images: [await ctx.attachImageFile(pasted)] };
    } catch (err) {
      throw new RunError(sentence(errorMessage(err)));
    }
  }
  return { kind: 'message', ...(await attach(text, ctx)) };
}

async function planCommand(name: string, args: string, ctx: PlanContext): Promise<PromptPlan> {
  const command = ctx.commands.get(name);
  if (!command) {
    if (BUILTIN_COMMANDS.some((c) => c.name === name)) throw new ConfigError(`/${name} works only in the interactive UI (opencode-ink without "run").`);
    throw new ConfigError(unknownCommandMessage(name, [...ctx.commands.keys(), ...BUILTIN_COMMANDS.map((c) => c.name)]));
  }
  const agent = command.agent ? ctx.agents.get(command.agent) : undefined;
  if (command.agent && (!agent || agent.disable)) {
    const names = [...ctx.agents.values()].filter((a) => !a.disable).map((a) => a.name);
    throw new ConfigError(`/${name}: its agent "${command.agent}" does not exist (${command.source}); agents: ${names.join(', ')}.`);
  }
  const template = renderTemplate(command.template, args);
  const refused = command.untrusted ? shellInlines(command.template)[0] : undefined;
  if (refused !== undefined) {
    // DESIGN §15: a repository's command may not run shell commands before the user trusts it.
    throw new RunError(
      `/${name}: !\`${refused}\` was not run: ${command.source} belongs to a project you have not trusted (run "opencode-ink trust" to trust it).`,
    );
  }
  let rendered: string;
  try {
    rendered = await expandShell(template, ctx.io);
  } catch (err) {
    throw new RunError(sentence(`/${name}: ${errorMessage(err)}`));
  }
  const model = { ...(command.model ? { model: command.model } : {}), ...(command.skill ? { skill: command.skill } : {}) };
  if (isSubtask(command, agent?.mode)) {
    return {
      kind: 'subtask',
      agent: agent?.name ?? ctx.currentAgent,
      prompt: await attachForTask(rendered, ctx, `/${name}`),
      description: command.description ?? `/${name}`,
      command: name,
      ...model,
    };
  }
  const attached = await attach(rendered, ctx, `/${name}`);
  const keeps = command.keeps ? { keeps: { file: command.keeps, command: name } } : {};
  return { kind: 'message', ...attached, ...(agent && agent.name !== ctx.currentAgent ? { agent: agent.name } : {}), ...model, ...keeps };
}

async function attach(text: string, ctx: PlanContext, label?: string): Promise<{ text: string; images: ImagePart[] }> {
  try {
    return await attachMentions(text, ctx.io, ctx.projectRoot);
  } catch (err) {
    throw new RunError(sentence(`${label ? `${label}: ` : ''}${errorMessage(err)}`));
  }
}

/**
 * A sub-agent's prompt is text (`task`'s `prompt`): a mentioned image is named there for the
 * child to read itself, rather than attached to the parent's message.
 */
async function attachForTask(text: string, ctx: PlanContext, label: string): Promise<string> {
  const attached = await attach(text, ctx, label);
  if (!attached.images.length) return attached.text;
  const notes = attached.images.map((image) => imageLabel(image, 'mentioned: read the file to see it'));
  return `${attached.text}\n\n${notes.join('\n')}`;
}

function firstWords(text: string): string {
  const line = text.trim().split('\n')[0]!;
  const words = line.split(/\s+/).slice(0, 6).join(' ');
  return words.length > 50 ? `${words.slice(0, 49)}…` : words;
}
