// Decides a tool's permission request for one session: rules first (own ruleset and every
// ancestor's, strictest wins), then "always allow" grants made anywhere in the session tree,
// and only then the user, through an asker that the session's parent chain routes upward.
// Bash requests are decided per simple command (bash-match.ts), for rules and grants alike.
// Inside a sandbox that auto-allows (DESIGN §19) the built-in `bash: ask` default no longer
// asks, while every rule from the config or an agent file still does; leaving the sandbox
// (`needsPerson`) always goes to a person.
import type { PermissionReply } from '../events.js';
import { PermissionDeniedError, type PermissionRequest } from '../tools/types.js';
import { alwaysPatterns, analyzeBash, decideBash, decideBashChain, deniedCommands } from './bash-match.js';
import { DEFAULT_RULES, evaluateChain, wildcardMatch, type Rule, type Ruleset } from './rules.js';

/** "Always allow" answers, shared by every session of one tree. */
export class TreeApprovals {
  private readonly rules: Rule[] = [];

  grant(permission: string, patterns: readonly string[]): void {
    for (const pattern of patterns) this.rules.push({ permission, pattern, action: 'allow' });
  }

  covers(request: PermissionRequest): boolean {
    return rulesCover(this.rules, request);
  }
}

/** True when allow rules (grants) cover every part of a request; a bash line is covered only command by command. */
export function rulesCover(grants: readonly Rule[], request: PermissionRequest): boolean {
  const own = grants.filter((r) => wildcardMatch(r.permission, request.permission));
  if (own.length === 0) return false;
  if (request.shell) return decideBash(own, request.shell) === 'allow';
  const list = request.patterns.length ? request.patterns : ['*'];
  return list.every((value) => own.some((r) => wildcardMatch(r.pattern, value)));
}

/** Whether `patterns` granted for `permission` cover `request` (an "always" answer settling other pending asks). */
export function grantCovers(permission: string, patterns: readonly string[], request: PermissionRequest): boolean {
  return rulesCover(
    patterns.map((pattern) => ({ permission, pattern, action: 'allow' })),
    request,
  );
}

export interface PermissionQuestion extends PermissionRequest {
  tool: string;
  callId: string;
}

/** Answers a permission question: the user through the UI, `--yes`, or a refusal. */
export type PermissionAsker = (question: PermissionQuestion) => Promise<PermissionOutcome>;

export interface PermissionOutcome {
  reply: PermissionReply;
  /** Why the request was refused, in words the model can act on. */
  message?: string;
}

export class PermissionGate {
  constructor(
    /** This session's ruleset first, then each ancestor's. */
    private readonly chain: readonly Ruleset[],
    private readonly approvals: TreeApprovals,
    private readonly asker: PermissionAsker,
  ) {}

  get rulesets(): readonly Ruleset[] {
    return this.chain;
  }

  async check(incoming: PermissionRequest, tool: string, callId: string): Promise<void> {
    // A bash request without its analysis (not built by bashPermissionRequest) is parsed here:
    // matching the raw line as one pattern is exactly what lets `git status; rm x` through.
    let request = incoming;
    if (incoming.permission === 'bash' && !incoming.shell) {
      const shell = await analyzeBash(incoming.patterns.join('\n'));
      request = { ...incoming, shell, always: incoming.always ?? alwaysPatterns(shell) };
    }
    const decision = request.shell
      ? decideBashChain(request.sandboxAutoAllow ? sandboxedChain(this.chain) : this.chain, request.shell)
      : evaluateChain(this.chain, request.permission, request.patterns);
    if (decision === 'allow' && request.mustAsk === undefined && request.needsPerson === undefined) return;
    if (decision === 'deny') {
      const named = request.shell ? deniedCommands(this.chain, request.shell) : [];
      throw new PermissionDeniedError(
        `Permission denied by the configured rules: ${request.permission} ${describePatterns(named.length ? named : request.patterns)} is not allowed for this agent.`,
      );
    }
    if (request.needsPerson === undefined && this.approvals.covers(request)) return;
    const outcome = await this.asker({ ...request, tool, callId });
    if (outcome.reply === 'reject') {
      throw new PermissionDeniedError(
        outcome.message ?? `The user denied permission for ${request.permission} ${describePatterns(request.patterns)}.`,
      );
    }
    if (outcome.reply === 'always') this.approvals.grant(request.permission, request.always ?? request.patterns);
  }
}

/** The chain with the built-in defaults' asks for bash turned into allow: what a sandbox that auto-allows decides on. */
function sandboxedChain(chain: readonly Ruleset[]): Ruleset[] {
  const asDefault = (rule: Rule) => DEFAULT_RULES.includes(rule) && rule.action === 'ask' && wildcardMatch(rule.permission, 'bash');
  return chain.map((ruleset) => ruleset.map((rule): Rule => (asDefault(rule) ? { ...rule, action: 'allow' } : rule)));
}

function describePatterns(patterns: readonly string[]): string {
  const shown = patterns.map((p) => (p.length > 120 ? `${p.slice(0, 117)}...` : p));
  return shown.map((p) => `\`${p}\``).join(', ');
}
