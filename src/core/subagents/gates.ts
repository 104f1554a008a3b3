// Gate A (which tools a session sees) and the question/permission routes a parent hands to
// its child. Both are pure functions of the parent's state, so a child can only ever hold
// a subset of what its parent holds and can only reach the user through its parent.
import { allowlistMatches, type AgentDefinition } from '../agents/index.js';
import type { LiveSession, PermissionRoute, QuestionRoute } from '../agent/live-session.js';
import { deniesEntirely, evaluateChain, permissionKeyOf, type Ruleset } from '../permission/rules.js';

export const TASK_TOOL = 'task';
export const ASK_USER_TOOL = 'ask_user';
/** A team's messages (DESIGN §24): offered only to members of a team, whatever their allowlists say. */
const SEND_MESSAGE_TOOL = 'send_message';
/** The agent's own memory folder (agents/memory-tool.ts): its `memory:` gives it, whatever `tools` lists or the parent holds. */
const MEMORY_TOOL = 'memory';
const TODO_TOOLS = new Set(['todowrite', 'todoread']);
/**
 * The background-shell tools come with `bash`: a session that can start a background command
 * can read and stop it, one that cannot run bash has no use for them. So an allowlist naming
 * `bash` (plan, explore, `Bash` in a Claude Code file) gives them too; only a `false` for them
 * in an agent's map or a deny of their own name takes them away.
 */
const SHELL_COMPANIONS = new Set(['bash_output', 'kill_shell']);
const BASH_TOOL = 'bash';

export interface ToolGateInput {
  /** Every tool that exists for this session, in display order. */
  available: readonly string[];
  agent: Pick<AgentDefinition, 'tools' | 'disabledTools'>;
  /** The session's ruleset first, then each ancestor's. */
  chain: readonly Ruleset[];
  depth: number;
  maxDepth: number;
  /** The parent's tool names; absent for a root session. */
  parentTools?: readonly string[] | undefined;
  /** `task.tools` of the call that started this child: names and globs. */
  narrow?: readonly string[] | undefined;
  /** Tools the session brings itself (its agent's own MCP servers): not limited to the parent's set. */
  ownTools?: readonly string[] | undefined;
}

export interface ToolGateResult {
  names: string[];
  /** Why a tool the model might expect is absent, for the error it gets if it calls it anyway. */
  hints: Record<string, string>;
}

export function selectToolNames(input: ToolGateInput): ToolGateResult {
  // Allowlists hold names and globs (`gl*`, `mcp__github__*`).
  const allow = input.agent.tools;
  const listed = (name: string) => allow !== undefined && allowlistMatches(allow, name);
  // Names and globs (`disallowedTools: mcp__github__*`).
  const disabledList = input.agent.disabledTools ?? [];
  const disabled = { has: (name: string) => allowlistMatches(disabledList, name) };
  const parent = input.parentTools ? new Set(input.parentTools) : undefined;
  const narrow = input.narrow;
  const hints: Record<string, string> = {};

  const names = input.available.filter((name) => {
    // Questions are always possible: the route decides whether anyone can answer.
    if (name === ASK_USER_TOOL) return true;
    // Offered only where a team exists (the session factory decides): a teammate must be able to answer.
    if (name === SEND_MESSAGE_TOOL) return !input.chain.some((ruleset) => deniesEntirely(ruleset, permissionKeyOf(name)));
    // Decided below, once it is known whether bash is given.
    if (SHELL_COMPANIONS.has(name)) return true;
    if (disabled.has(name)) return false;
    if (name === MEMORY_TOOL) return !input.chain.some((ruleset) => deniesEntirely(ruleset, MEMORY_TOOL));
    if (allow && !listed(name)) return false;
    if (input.chain.some((ruleset) => deniesEntirely(ruleset, permissionKeyOf(name)))) return false;
    if (name === TASK_TOOL && input.depth >= input.maxDepth) {
      hints[TASK_TOOL] =
        input.depth === 0
          ? 'Sub-agents are disabled.'
          : `Sub-agents at depth ${input.depth} cannot start further sub-agents (subagents.max_depth is ${input.maxDepth}); do the work yourself.`;
      return false;
    }
    if (input.depth > 0 && TODO_TOOLS.has(name) && !listed(name)) return false;
    if (parent && !parent.has(name) && !input.ownTools?.includes(name)) return false;
    if (narrow && !allowlistMatches(narrow, name)) return false;
    return true;
  });
  const hasBash = names.includes(BASH_TOOL);
  const companionAllowed = (name: string) =>
    hasBash && !disabled.has(name) && !input.chain.some((ruleset) => deniesEntirely(ruleset, permissionKeyOf(name)));
  return { names: names.filter((name) => !SHELL_COMPANIONS.has(name) || companionAllowed(name)), hints };
}

/**
 * The sub-agents a session's `task` tool offers: those its `permission.task` rules (own and
 * every ancestor's) do not deny. The denied ones are named so a call to one can say why.
 */
export function offeredSubagents(catalogue: readonly AgentDefinition[], chain: readonly Ruleset[]): { offered: AgentDefinition[]; denied: string[] } {
  const offered: AgentDefinition[] = [];
  const denied: string[] = [];
  for (const agent of catalogue) {
    if (evaluateChain(chain, TASK_TOOL, [agent.name]) === 'deny') denied.push(agent.name);
    else offered.push(agent);
  }
  return { offered, denied };
}

export interface RouteSettings {
  approvals: 'bubble' | 'deny';
}

/**
 * The handlers a parent gives its child: each forwards to the parent's own handler with the
 * child still named as the origin, so the request climbs one level at a time and reaches
 * the root broker labelled with the child's path.
 */
export function childRoutes(parent: LiveSession, settings: RouteSettings): { askUser: QuestionRoute; askPermission: PermissionRoute } {
  return {
    askUser: (origin, question, options) => parent.askUser(origin, question, options),
    askPermission: (origin, question) => {
      if (settings.approvals === 'deny') {
        return Promise.resolve({
          reply: 'reject',
          message: `${question.tool} (${question.subject.split('\n')[0]}) needs approval, and sub-agents may not ask for it (subagents.approvals is "deny").`,
        });
      }
      return parent.askPermission(origin, question);
    },
  };
}
