// Parses one SKILL.md: YAML front-matter (`name`, `description`, optional `license`,
// `allowed-tools` (./allowed-tools.ts), and Claude Code's `model`, `context: fork` with `agent`, `user-invocable`,
// `disable-model-invocation`; other keys are ignored, as other tools add their own) and the body.
// Rejects what cannot be a skill — no description, a name unsafe to print or to match —
// with one reason the loader turns into a warning.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { describeIssue } from '../config/issues.js';
import { readFrontMatter } from '../frontmatter.js';
import type { SkillDefinition } from './definition.js';
import { allowedToolGrants } from './allowed-tools.js';

/**
 * Letters, digits, `.`, `_`, `-`, up to 64 characters: the Agent Skills names (lowercase and
 * hyphens) and a little more, but nothing a terminal or a permission pattern would misread.
 */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const SkillFrontMatterSchema = lazySchema(() =>
  z.object({
    name: z.string().optional(),
    description: z.string().trim().min(1, 'a skill needs a description: it is what tells the model when to use it'),
    license: z.string().optional(),
    'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
    model: z.string().min(1).optional(),
    context: z.string().optional(),
    agent: z.string().min(1).optional(),
    'user-invocable': z.boolean().optional(),
    'disable-model-invocation': z.boolean().optional(),
  }),
);

/** `warnings`: what the skill says that is not applied as written, each naming the field. */
/** The sub-agent a `context: fork` skill runs in when it names none (Claude Code's general-purpose). */
export const FORK_DEFAULT_AGENT = 'general';

/**
 * Claude Code's built-in sub-agents as a skill names them, and ours that do the same work, so a
 * skill written for it forks into the right agent here.
 */
const CLAUDE_CODE_AGENTS: Readonly<Record<string, string>> = { 'general-purpose': FORK_DEFAULT_AGENT, Explore: 'explore', Plan: 'plan' };

export type ParsedSkill = { ok: true; skill: SkillDefinition; warnings: string[] } | { ok: false; reason: string };

export interface ParseSkillOptions {
  /** The folder's absolute path; its last part is the name when the front-matter has none. */
  dir: string;
  folderName: string;
  file: string;
  origin: SkillDefinition['origin'];
}

function forkAgent(agent: string | undefined): string {
  if (agent === undefined) return FORK_DEFAULT_AGENT;
  return Object.hasOwn(CLAUDE_CODE_AGENTS, agent) ? CLAUDE_CODE_AGENTS[agent]! : agent;
}

export function parseSkillMarkdown(text: string, opts: ParseSkillOptions): ParsedSkill {
  const read = readFrontMatter(text);
  if (!read.ok) return read;
  // jitless: a handful of files per start; see config/load.ts.
  const result = SkillFrontMatterSchema.safeParse(read.data, { jitless: true });
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: issue ? describeIssue(SkillFrontMatterSchema, read.data, issue) : 'invalid front-matter' };
  }
  const fields = result.data;
  const name = fields.name?.trim() || opts.folderName;
  if (!SKILL_NAME.test(name)) {
    return { ok: false, reason: `the name ${JSON.stringify(name.slice(0, 80))} is not a skill name (letters, digits, ".", "_" and "-", at most 64)` };
  }
  const allowed = allowedToolGrants(fields['allowed-tools']);
  const warnings: string[] = [...allowed.warnings];
  const allowedTools = allowed.entries.length > 0 ? allowed.entries : undefined;
  let fork = false;
  if (fields.context !== undefined) {
    if (fields.context === 'fork') fork = true;
    else warnings.push(`ignoring "context: ${fields.context}": the only context a skill can ask for is fork.`);
  }
  if (fields.agent !== undefined && !fork) warnings.push('ignoring "agent": it names the sub-agent of "context: fork", which this skill does not set.');
  const userInvocable = fields['user-invocable'] ?? true;
  const modelInvocable = fields['disable-model-invocation'] !== true;
  if (!userInvocable && !modelInvocable) warnings.push('"user-invocable: false" with "disable-model-invocation: true": nobody can use this skill.');
  return {
    ok: true,
    warnings,
    skill: {
      name,
      description: fields.description.trim(),
      body: read.body.trim(),
      dir: opts.dir,
      file: opts.file,
      origin: opts.origin,
      ...(fields.license !== undefined ? { license: fields.license } : {}),
      ...(allowedTools ? { allowedTools } : {}),
      ...(allowed.grants.length > 0 ? { grants: allowed.grants } : {}),
      ...(fields.model !== undefined ? { model: fields.model } : {}),
      ...(fork ? { fork: { agent: forkAgent(fields.agent) } } : {}),
      ...(userInvocable ? {} : { userInvocable: false as const }),
      ...(modelInvocable ? {} : { modelInvocable: false as const }),
    },
  };
}
