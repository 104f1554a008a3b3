// Decides a tool's permission request for one session: rules first (own ruleset and every
// ancestor's, strictest wins), then "always allow" grants made anywhere in the session tree,
// and only then the user, through an asker that the session's parent chain routes upward.
// Bash requests are decided per simple command (bash-match.ts), for rules and grants alike.
// A request with `mustAsk` goes to the user even when the rules allow it; one that writes the
// program's control files is passed only by an `edit` rule naming each file exactly or by an
// earlier "always" for each of those very files (never by a pattern granted for other files,
// and never for a name only the running line knows: a glob, a variable).
// Inside a sandbox that auto-allows (DESIGN §19) the built-in `bash: ask` default no longer
// asks, while every rule from the config or an agent file still does; leaving the sandbox
// (`needsPerson`) always goes to a person.
// A PreToolUse hook's answer (DESIGN §20) comes in as `hook`: `allow` lifts only the asks the
// built-in defaults give (like a sandbox's auto-allow: the config's own ask and deny rules,
// the control-files guard and leaving the sandbox still apply); `approved` means a person
// already said yes to this call when the hook asked, so the rules' asks are settled too.
// The session's permission mode (DESIGN §26, ./modes.ts) decides last, on what would still
// ask: each mode of the chain (the session's, then its ancestors') gives allow, ask or deny,
// the strictest winning; `plan` also adds the plan agent's rules and refuses changing tools.
// Skills active in the session (their `allowed-tools`, skills/allowed-tools.ts) settle a
// request that would still ask, like an "always" answer kept to this one session, but never
// one that deny rules refuse, the control-file guard or leaving the sandbox holds, nor any in
// plan mode; each one they settle is reported as an auto approval naming the skill.
import type { PermissionReply } from '../events.js';
import { PermissionDeniedError, type PermissionRequest } from '../tools/types.js';
import { alwaysPatterns, analyzeBash, decideBash, decideBashChain, deniedCommands } from './bash-match.js';
import { dontAskRefusal, modeOnAsk, PLAN_RULESET, planRefusal, type PermissionMode } from './modes.js';
import { DEFAULT_RULES, evaluateChain, stricter, wildcardMatch, type Rule, type Ruleset } from './rules.js';
import type { PermissionAction } from './schema.js';

/** "Always allow" answers, shared by every session of one tree. */
export class TreeApprovals {
  private readonly rules: Rule[] = [];
  /** Control files the user answered "always" for, compared exactly: no pattern stretches to another one. */
  private readonly controlFiles = new Set<string>();

  grant(permission: string, patterns: readonly string[]): void {
    for (const pattern of patterns) this.rules.push({ permission, pattern, action: 'allow' });
  }

  grantControlFiles(paths: readonly string[]): void {
    for (const file of paths) this.controlFiles.add(file);
  }

  covers(request: PermissionRequest): boolean {
    return rulesCover(this.rules, request);
  }

  coversControlFiles(paths: readonly string[]): boolean {
    return paths.every((file) => this.controlFiles.has(file));
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

/** Whether `patterns` granted for `permission` cover `request`. */
export function grantCovers(permission: string, patterns: readonly string[], request: PermissionRequest): boolean {
  return rulesCover(
    patterns.map((pattern) => ({ permission, pattern, action: 'allow' })),
    request,
  );
}

/** Whether an "always" answer to `granted` also settles the pending `request` (same tree and permission). */
export function answerSettles(granted: PermissionRequest, request: PermissionRequest): boolean {
  const byPatterns = grantCovers(granted.permission, granted.always ?? granted.patterns, request);
  if (!byPatterns || request.mustAsk === undefined) return byPatterns;
  // A request that must be asked is settled only by an answer about the same things.
  const files = new Set((granted.controlFiles ?? []).filter((f) => !f.unknownName).map((f) => f.path));
  const wanted = request.controlFiles ?? [];
  return wanted.length > 0 ? wanted.every((f) => files.has(f.path)) : granted.mustAsk !== undefined;
}

/** True when every ruleset's deciding `edit` rule for `file` allows it by naming it exactly. */
function namedExactly(chain: readonly Ruleset[], file: string): boolean {
  return chain.every((ruleset) => {
    for (let i = ruleset.length - 1; i >= 0; i--) {
      const rule = ruleset[i]!;
      if (wildcardMatch(rule.permission, 'edit') && wildcardMatch(rule.pattern, file)) return rule.action === 'allow' && rule.pattern === file;
    }
    return false;
  });
}

/** The request as the user sees it once the rules named its control files: an ordinary ask. */
function withoutGuard(request: PermissionRequest): PermissionRequest {
  const { mustAsk: _mustAsk, controlFiles: _controlFiles, ...rest } = request;
  return rest;
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

/** What a PreToolUse hook said about the call being checked. */
export type HookApproval = 'allow' | 'approved';

/** A request a permission mode, or an active skill's `allowed-tools`, let run without asking anyone (`permission.auto`). */
export interface AutoApproval {
  /** The session's mode (the one that decided, unless `skill` is set). */
  mode: PermissionMode;
  tool: string;
  callId: string;
  request: PermissionRequest;
  /** The skill whose `allowed-tools` let it run. */
  skill?: string;
}

/** A skill whose `allowed-tools` apply in a session: what it lets run unasked. */
export interface ActiveSkill {
  /** The skill's name; for a command file's `allowed-tools`, `/` and the command's name (`/review`). */
  name: string;
  grants: ReadonlyArray<{ permission: string; patterns: readonly string[] }>;
  /** A command file's grants: they hold while its prompt runs and are not kept as a fact of the session. */
  command?: true;
}

/** The permission modes a gate applies, read at every check (a mode may change while a turn runs). */
export interface GateModes {
  /** The session's effective mode first, then each ancestor's. */
  chain(): readonly PermissionMode[];
  /** Whether the session's tool of that name is marked read-only (plan mode keeps only those). */
  readOnly(tool: string): boolean | undefined;
  /** Told of each request a mode allowed that would otherwise have asked. */
  onAuto(approval: AutoApproval): void;
  /** Told of each skill with grants made active, so the session keeps it across restarts and compaction. */
  onSkill?(name: string): void;
}

export class PermissionGate {
  /** Skills loaded in this session, by name, as allow rules: they last as long as the session. */
  private readonly skills = new Map<string, Rule[]>();
  /** `context: fork` skills by the id of the call that runs them: the sub-agent that call starts gets them. */
  private readonly forkedSkills = new Map<string, ActiveSkill>();

  constructor(
    /** This session's ruleset first, then each ancestor's. */
    private readonly chain: readonly Ruleset[],
    private readonly approvals: TreeApprovals,
    private readonly asker: PermissionAsker,
    private readonly modes?: GateModes,
  ) {}

  get rulesets(): readonly Ruleset[] {
    return this.chain;
  }

  /** The session's effective permission mode first, then each ancestor's; empty for a gate without modes. */
  modeChain(): readonly PermissionMode[] {
    return this.modes?.chain() ?? [];
  }

  /** From now on, the skill's `allowed-tools` settle this session's requests that would ask (not its sub-agents'). */
  activateSkill(skill: ActiveSkill): void {
    if (skill.grants.length === 0) return;
    this.skills.set(skill.name, grantRules(skill));
    if (!skill.command) this.modes?.onSkill?.(skill.name);
  }

  /** A command's `allowed-tools` while its prompt runs: settle requests that would ask until the returned function is called. */
  grantForPrompt(skill: ActiveSkill): () => void {
    if (skill.grants.length === 0 || this.skills.has(skill.name)) return () => {};
    this.skills.set(skill.name, grantRules(skill));
    return () => {
      this.skills.delete(skill.name);
    };
  }

  /** The call `callId` runs `skill` in a sub-agent: that sub-agent's gate takes it with `forkedSkill`. */
  noteForkedSkill(callId: string, skill: ActiveSkill): void {
    this.forkedSkills.set(callId, skill);
  }

  /** The skill the call `callId` of this session runs in a sub-agent, if any. */
  forkedSkill(callId: string): ActiveSkill | undefined {
    return this.forkedSkills.get(callId);
  }

  /** The first active skill whose grants cover every part of the request. */
  private skillCovering(request: PermissionRequest): string | undefined {
    for (const [name, rules] of this.skills) if (rulesCover(rules, request)) return name;
    return undefined;
  }

  /** Why the session's mode refuses any call of `tool` before it runs (plan: tools that change things), or undefined. */
  modeRefusal(tool: string): string | undefined {
    if (!this.modeChain().includes('plan')) return undefined;
    return planRefusal(tool, this.modes?.readOnly(tool), { permission: tool, patterns: [], subject: tool });
  }

  async check(incoming: PermissionRequest, tool: string, callId: string, hook?: HookApproval): Promise<void> {
    // A bash request without its analysis (not built by bashPermissionRequest) is parsed here:
    // matching the raw line as one pattern is exactly what lets `git status; rm x` through.
    let request = incoming;
    if (incoming.permission === 'bash' && !incoming.shell) {
      const shell = await analyzeBash(incoming.patterns.join('\n'));
      request = { ...incoming, shell, always: incoming.always ?? alwaysPatterns(shell) };
    }
    const modes = this.modes?.chain() ?? [];
    const plan = modes.includes('plan');
    if (plan) {
      const refusal = planRefusal(tool, this.modes?.readOnly(tool), request);
      if (refusal !== undefined) throw new PermissionDeniedError(refusal);
    }
    // Plan's rules are a ruleset of their own: neither a hook's `allow` nor a sandbox lifts them.
    const withPlan = (chain: readonly Ruleset[]) => (plan ? [...chain, PLAN_RULESET] : chain);
    const relaxed = hook === 'allow' ? withoutDefaultAsks(this.chain) : undefined;
    const decision = request.shell
      ? decideBashChain(withPlan(relaxed ?? (request.sandboxAutoAllow ? sandboxedChain(this.chain) : this.chain)), request.shell)
      : evaluateChain(withPlan(relaxed ?? this.chain), request.permission, request.patterns);
    const files = (request.controlFiles ?? []).map((f) => f.path);
    // A name only the running line knows (a glob, a variable) is one no rule can name exactly.
    const named = request.controlFiles?.every((f) => !f.unknownName && namedExactly(this.chain, f.path));
    if (files.length > 0 && named) request = withoutGuard(request);
    const guarded = request.mustAsk !== undefined;
    const needsPerson = request.needsPerson !== undefined;
    if (decision === 'allow' && !guarded && !needsPerson) return;
    if (decision === 'deny') {
      const named = request.shell ? deniedCommands(this.chain, request.shell) : [];
      throw new PermissionDeniedError(
        `Permission denied by the configured rules: ${request.permission} ${describePatterns(named.length ? named : request.patterns)} is not allowed for this agent.`,
      );
    }
    const rulesCovered = decision === 'allow' || hook === 'approved' || this.approvals.covers(request);
    const guardCovered = !guarded || (request.controlFiles?.length ? this.approvals.coversControlFiles(files) : this.approvals.covers(request));
    if (!needsPerson && rulesCovered && guardCovered) return;
    // Only what would merely ask: plan's asks, the guard and leaving the sandbox stay with a person.
    const skill = plan || guarded || needsPerson || request.outsideSandbox !== undefined ? undefined : this.skillCovering(request);
    if (skill !== undefined) {
      this.modes?.onAuto({ mode: modes[0] ?? 'default', tool, callId, request, skill });
      return;
    }
    if (modes.length > 0) {
      const byModes = modes.reduce<PermissionAction>((worst, mode) => stricter(worst, modeOnAsk(mode, request)), 'allow');
      if (byModes === 'deny') throw new PermissionDeniedError(dontAskRefusal(tool, request));
      if (byModes === 'allow') {
        this.modes?.onAuto({ mode: modes[0]!, tool, callId, request });
        return;
      }
    }
    const outcome = await this.asker({ ...request, tool, callId });
    if (outcome.reply === 'reject') {
      throw new PermissionDeniedError(
        outcome.message ?? `The user denied permission for ${request.permission} ${describePatterns(request.patterns)}.`,
      );
    }
    if (outcome.reply === 'always') {
      this.approvals.grant(request.permission, request.always ?? request.patterns);
      if (request.controlFiles?.length) this.approvals.grantControlFiles(request.controlFiles.filter((f) => !f.unknownName).map((f) => f.path));
    }
  }
}

/** A skill's grants as allow rules. */
function grantRules(skill: ActiveSkill): Rule[] {
  return skill.grants.flatMap((grant) => grant.patterns.map((pattern): Rule => ({ permission: grant.permission, pattern, action: 'allow' })));
}

/** The chain with the built-in defaults' asks for bash turned into allow: what a sandbox that auto-allows decides on. */
function sandboxedChain(chain: readonly Ruleset[]): Ruleset[] {
  const asDefault = (rule: Rule) => DEFAULT_RULES.includes(rule) && rule.action === 'ask' && wildcardMatch(rule.permission, 'bash');
  return chain.map((ruleset) => ruleset.map((rule): Rule => (asDefault(rule) ? { ...rule, action: 'allow' } : rule)));
}

/** The chain with every ask of the built-in defaults turned into allow: what a hook's `allow` decides on. */
function withoutDefaultAsks(chain: readonly Ruleset[]): Ruleset[] {
  return chain.map((ruleset) => ruleset.map((rule): Rule => (DEFAULT_RULES.includes(rule) && rule.action === 'ask' ? { ...rule, action: 'allow' } : rule)));
}

function describePatterns(patterns: readonly string[]): string {
  const shown = patterns.map((p) => (p.length > 120 ? `${p.slice(0, 117)}...` : p));
  return shown.map((p) => `\`${p}\``).join(', ');
}
