// Fires one hook event: runs every configured command whose matcher fits (in parallel, each
// distinct command once, as Claude Code does), and reads their answers into one verdict.
// Contract, following Claude Code's hooks reference:
// - exit 0: go on; stdout that is a JSON object is read (`continue`/`stopReason`, `decision`
//   `block`|`approve` + `reason`, `hookSpecificOutput.permissionDecision` `allow|deny|ask` +
//   `permissionDecisionReason`, `hookSpecificOutput.additionalContext`, `systemMessage`);
//   other stdout counts as context only where the event adds context (UserPromptSubmit, SessionStart);
// - exit 2: blocks, stderr is the reason (what blocking means is the event's business);
// - any other exit, a start failure, a timeout: a warning, never a block;
// - several hooks: any block blocks (reasons joined), deny beats ask beats allow, contexts add up.
import { isPlainObject } from '../config/merge.js';
import { childEnv } from '../tools/child-env.js';
import { isEmptyHookSet, mergeHooks, type HookCommand, type HookEventName, type HookGroup, type HookSet } from './config.js';
import { runHookProcess, type HookProcessResult } from './process.js';

export type HookPermission = 'allow' | 'deny' | 'ask';

export interface HookVerdict {
  /** Why the event's action is blocked (exit 2's stderr, or `decision: "block"`'s reason). */
  block?: string;
  /** PreToolUse's `permissionDecision`, strictest of all hooks. */
  permission?: HookPermission;
  permissionReason?: string;
  /** Text for the model: `additionalContext`, and plain stdout where the event takes it. */
  context: string[];
  /** `continue: false`: the agent stops after this step; the `stopReason` (or a default) for the user. */
  stop?: string;
  /** One line each, for the user: failed hooks, timeouts, `systemMessage`s. */
  warnings: string[];
}

export interface FireOptions {
  /** What matchers are tested against (a tool's names, a notification type…); undefined: every group runs. */
  subject?: readonly string[];
  /** The JSON the hooks read on stdin. */
  input: Record<string, unknown>;
  /** The folder hooks run in (the project). */
  cwd: string;
  signal: AbortSignal;
}

/** Events whose plain stdout (exit 0) is added to the model's context. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'SessionStart']);

const PERMISSION_ORDER: readonly HookPermission[] = ['allow', 'ask', 'deny'];

/**
 * The runner for a session whose agent brings hooks of its own (its file's `hooks:`): the
 * settings files' hooks and the agent's together, the agent's running only in its sessions.
 * As a sub-agent, its `Stop` hooks fire when it finishes, as `SubagentStop` (Claude Code does
 * the same). Without hooks of its own, the shared runner as it is.
 */
export function withAgentHooks(shared: HookRunner | undefined, own: HookSet | undefined, asSubagent: boolean): HookRunner | undefined {
  if (!own || isEmptyHookSet(own)) return shared;
  let scoped: HookSet = own;
  if (asSubagent && own.Stop?.length) {
    const { Stop: stop, ...rest } = own;
    const subagentStop: readonly HookGroup[] = [...(rest.SubagentStop ?? []), ...stop];
    scoped = { ...rest, SubagentStop: subagentStop };
  }
  return new HookRunner(mergeHooks([shared?.set ?? {}, scoped]));
}

export class HookRunner {
  /** `once` commands that already ran, by event and command line. */
  private readonly ranOnce = new Set<string>();

  constructor(readonly set: HookSet) {}

  /** Whether any hook is configured for `event` (nothing is built or run otherwise). */
  has(event: HookEventName): boolean {
    return (this.set[event]?.length ?? 0) > 0;
  }

  async fire(event: HookEventName, options: FireOptions): Promise<HookVerdict> {
    const matched = this.matching(event, options.subject).filter((hook) => {
      if (!hook.once) return true;
      const key = `${event}\0${hook.command}`;
      if (this.ranOnce.has(key)) return false;
      this.ranOnce.add(key);
      return true;
    });
    const verdict: HookVerdict = { context: [], warnings: [] };
    if (matched.length === 0) return verdict;
    const input = JSON.stringify(options.input);
    const env = childEnv({ CLAUDE_PROJECT_DIR: options.cwd });
    // `async` hooks (Claude Code's): started, never waited for, and nothing they say counts; a
    // cancel does not stop them, their own timeout does (and the program's exit).
    for (const hook of matched.filter((h) => h.background)) {
      void runHookProcess(hook.command, { cwd: options.cwd, env, input, timeoutMs: hook.timeoutSeconds * 1000, signal: new AbortController().signal }).catch(() => undefined);
    }
    const commands = matched.filter((hook) => !hook.background);
    const results = await Promise.all(
      commands.map(async (hook) => ({
        hook,
        result: await runHookProcess(hook.command, { cwd: options.cwd, env, input, timeoutMs: hook.timeoutSeconds * 1000, signal: options.signal }).catch(
          // Never a crash, whatever went wrong starting it: a hook that cannot run is a warning.
          (err: unknown): HookProcessResult => ({ exitCode: null, stdout: '', stderr: '', timedOut: false, cancelled: false, truncated: false, startError: err instanceof Error ? err.message : String(err) }),
        ),
      })),
    );
    for (const { hook, result } of results) readResult(event, hook, result, verdict);
    return verdict;
  }

  /** The commands of every matching group, each distinct command line once. */
  private matching(event: HookEventName, subject: readonly string[] | undefined): HookCommand[] {
    const seen = new Set<string>();
    const out: HookCommand[] = [];
    for (const group of this.set[event] ?? []) {
      if (subject && !group.matches(subject)) continue;
      for (const hook of group.hooks) {
        if (seen.has(hook.command)) continue;
        seen.add(hook.command);
        out.push(hook);
      }
    }
    return out;
  }
}

function readResult(event: HookEventName, hook: HookCommand, result: HookProcessResult, verdict: HookVerdict): void {
  const name = `${event} hook \`${shorten(hook.command, 60)}\``;
  if (result.cancelled) return;
  if (result.truncated) verdict.warnings.push(`${name} printed more than 64 KB; the rest was dropped.`);
  if (result.startError !== undefined) {
    verdict.warnings.push(`${name} could not start: ${result.startError}`);
    return;
  }
  if (result.timedOut) {
    verdict.warnings.push(`${name} did not finish within ${hook.timeoutSeconds} s and was stopped; going on without it.`);
    return;
  }
  if (result.exitCode === 2) {
    addBlock(verdict, result.stderr.trim() || `${name} blocked this (exit code 2) without saying why.`);
    return;
  }
  if (result.exitCode !== 0) {
    const said = firstLine(result.stderr) || firstLine(result.stdout);
    verdict.warnings.push(`${name} failed (exit code ${result.exitCode ?? 'none'})${said ? `: ${said}` : ''}; going on.`);
    return;
  }
  const output = parseJsonOutput(result.stdout);
  if (output === undefined) {
    const text = result.stdout.trim();
    if (text && STDOUT_IS_CONTEXT.has(event)) verdict.context.push(text);
    return;
  }
  readJsonOutput(event, name, output, verdict);
}

function readJsonOutput(event: HookEventName, name: string, output: Record<string, unknown>, verdict: HookVerdict): void {
  const reason = typeof output.reason === 'string' ? output.reason : undefined;
  if (typeof output.systemMessage === 'string' && output.systemMessage.trim()) verdict.warnings.push(`${name}: ${output.systemMessage.trim()}`);
  if (output.continue === false) {
    verdict.stop ??= typeof output.stopReason === 'string' && output.stopReason.trim() ? output.stopReason.trim() : `${name} stopped the agent.`;
  }
  if (output.decision === 'block') addBlock(verdict, reason ?? `${name} blocked this.`);
  // The older spelling of a PreToolUse decision: `approve` allows, `block` (above) denies.
  if (output.decision === 'approve' && event === 'PreToolUse') addPermission(verdict, 'allow', reason);
  const specific = output.hookSpecificOutput;
  if (!isPlainObject(specific)) return;
  const fields = specific;
  const decision = fields.permissionDecision;
  if (event === 'PreToolUse' && (decision === 'allow' || decision === 'deny' || decision === 'ask')) {
    addPermission(verdict, decision, typeof fields.permissionDecisionReason === 'string' ? fields.permissionDecisionReason : undefined);
  }
  if (typeof fields.additionalContext === 'string' && fields.additionalContext.trim()) verdict.context.push(fields.additionalContext.trim());
}

function addBlock(verdict: HookVerdict, reason: string): void {
  verdict.block = verdict.block ? `${verdict.block}\n${reason}` : reason;
}

function addPermission(verdict: HookVerdict, decision: HookPermission, reason: string | undefined): void {
  const current = verdict.permission;
  if (current && PERMISSION_ORDER.indexOf(current) > PERMISSION_ORDER.indexOf(decision)) return;
  if (current !== decision) verdict.permissionReason = undefined;
  verdict.permission = decision;
  if (reason?.trim()) verdict.permissionReason = verdict.permissionReason ? `${verdict.permissionReason}\n${reason.trim()}` : reason.trim();
}

/** stdout as Claude Code's JSON answer, when it is one object; undefined for plain text. */
function parseJsonOutput(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return shorten(text.trim().split('\n')[0] ?? '', 200);
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
