// Decides a tool's permission request for one session: rules first (own ruleset and every
// ancestor's, strictest wins), then "always allow" grants made anywhere in the session tree,
// and only then the user, through an asker that the session's parent chain routes upward.
import type { PermissionReply } from '../events.js';
import { PermissionDeniedError, type PermissionRequest } from '../tools/types.js';
import { evaluateChain, wildcardMatch, type Rule, type Ruleset } from './rules.js';

/** "Always allow" answers, shared by every session of one tree. */
export class TreeApprovals {
  private readonly rules: Rule[] = [];

  grant(permission: string, patterns: readonly string[]): void {
    for (const pattern of patterns) this.rules.push({ permission, pattern, action: 'allow' });
  }

  covers(permission: string, patterns: readonly string[]): boolean {
    const list = patterns.length ? patterns : ['*'];
    return list.every((value) =>
      this.rules.some((r) => wildcardMatch(r.permission, permission) && wildcardMatch(r.pattern, value)),
    );
  }
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

  async check(request: PermissionRequest, tool: string, callId: string): Promise<void> {
    const decision = evaluateChain(this.chain, request.permission, request.patterns);
    if (decision === 'allow' && request.mustAsk === undefined) return;
    if (decision === 'deny') {
      throw new PermissionDeniedError(
        `Permission denied by the configured rules: ${request.permission} ${describePatterns(request.patterns)} is not allowed for this agent.`,
      );
    }
    if (this.approvals.covers(request.permission, request.patterns)) return;
    const outcome = await this.asker({ ...request, tool, callId });
    if (outcome.reply === 'reject') {
      throw new PermissionDeniedError(
        outcome.message ?? `The user denied permission for ${request.permission} ${describePatterns(request.patterns)}.`,
      );
    }
    if (outcome.reply === 'always') this.approvals.grant(request.permission, request.always ?? request.patterns);
  }
}

function describePatterns(patterns: readonly string[]): string {
  const shown = patterns.map((p) => (p.length > 120 ? `${p.slice(0, 117)}...` : p));
  return shown.map((p) => `\`${p}\``).join(', ');
}
