// Decides a bash command line against permission rules, one simple command at a time
// (DESIGN §7 "Rules that cannot be talked around"):
// - any simple command, or any wrapper it runs through, matching a `deny` rule denies;
// - `allow` needs every simple command to be allowed. An allow from a specific pattern
//   (`git status*`) does not cover a line that writes a file through a redirection or sets
//   environment variables that change how programs run; those ask. Only a tool-wide `*`
//   allow covers them;
// - a command the parser cannot read (a `$VAR` program, a syntax error), and code bash runs
//   without a command word (`$((x))` on a variable, `${x@P}`), take the ruleset's verdict for
//   "anything" when all its bash rules agree, and ask otherwise: deny when the catch-all denies;
// - a line that writes a file without running any command (`> keep.txt`) takes the catch-all's verdict;
// - an option that makes an allowed program write, read elsewhere or run another program
//   (`git log --output=F`) needs an allow whose pattern names it (or a tool-wide `*` allow).
// Wrappers (`env`, `timeout`, …) are transparent: their own text is matched only against
// specific rules (so `"sudo *": "ask"` still applies), while `sudo`/`doas` need their own allow.
import type { PermissionRequest } from '../tools/types.js';
import { bashParser } from './bash-parser.js';
import { analyzeCommand, type ShellAnalysis, type SimpleCommand } from './bash-parse.js';
import { controlFileGuard, controlFilesOfShell } from './control-files.js';
import { stricter, wildcardMatch, type Rule, type Ruleset } from './rules.js';
import type { PermissionAction } from './schema.js';

/** Parses `command`, loading the grammar on first use; a grammar that cannot load makes the line unreadable. */
export async function analyzeBash(command: string): Promise<ShellAnalysis> {
  try {
    return analyzeCommand(await bashParser(), command);
  } catch {
    return { commands: [], writesFile: false, redirectTargets: [], setsEnvironment: false, unparsable: true, hiddenCode: [] };
  }
}

function lastRule(ruleset: Ruleset, text: string): Rule | undefined {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!;
    if (wildcardMatch(rule.permission, 'bash') && wildcardMatch(rule.pattern, text)) return rule;
  }
  return undefined;
}

/** The verdict for a command nobody can read: what every bash rule of the ruleset agrees on, or ask. */
function blindAction(ruleset: Ruleset): PermissionAction {
  let base: PermissionAction = 'ask';
  let from = 0;
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!;
    if (rule.pattern === '*' && wildcardMatch(rule.permission, 'bash')) {
      base = rule.action;
      from = i + 1;
      break;
    }
  }
  if (base === 'deny') return 'deny';
  const later = ruleset.slice(from).filter((r) => wildcardMatch(r.permission, 'bash'));
  return later.every((r) => r.action === base) ? base : 'ask';
}

/** A deny rule naming some command (not the catch-all): code the parser cannot see might be that command. */
function hasSpecificDeny(ruleset: Ruleset): boolean {
  return ruleset.some((r) => r.action === 'deny' && r.pattern !== '*' && wildcardMatch(r.permission, 'bash'));
}

function commandAction(ruleset: Ruleset, command: SimpleCommand, conditional: boolean): PermissionAction {
  let result: PermissionAction = 'allow';
  for (const layer of command.wrappers) {
    const rule = lastRule(ruleset, layer.text);
    if (rule?.action === 'deny') return 'deny';
    if (layer.privileged) result = stricter(result, granted(rule, conditional));
    else if (rule && rule.pattern !== '*' && rule.action === 'ask') result = 'ask';
  }
  const plain = lastRule(ruleset, command.text);
  if (plain?.action === 'deny') return 'deny';
  // Case-insensitive file systems (macOS, Windows) run `RM x` as `rm x`.
  if (lastRule(ruleset, caseFolded(command.text))?.action === 'deny') return 'deny';
  if (!command.readable) return stricter(result, blindAction(ruleset));
  const own = command.allowText === command.text ? plain : lastRule(ruleset, command.allowText);
  if (own?.action === 'deny') return 'deny';
  if (command.runsUnseen && hasSpecificDeny(ruleset)) result = stricter(result, 'ask');
  return stricter(result, granted(own, conditional || !namesAll(own, command.riskyOptions)));
}

/** True when a rule's pattern names every risky option (`git log --output=*` names `--output`). */
function namesAll(rule: Rule | undefined, options: readonly string[] | undefined): boolean {
  if (!options?.length) return true;
  if (!rule) return false;
  const tokens = rule.pattern.split(/\s+/).filter((token) => token !== '*');
  return options.every((option) => tokens.some((token) => token === option || token.startsWith(`${option}=`) || (/^-[^-]$/.test(option) && token.startsWith(option))));
}

function caseFolded(text: string): string {
  const space = text.indexOf(' ');
  return space < 0 ? text.toLowerCase() : text.slice(0, space).toLowerCase() + text.slice(space);
}

/** An allow from a specific pattern does not stretch to redirections and environment changes. */
function granted(rule: Rule | undefined, conditional: boolean): PermissionAction {
  if (!rule) return 'ask';
  if (rule.action === 'allow' && conditional && rule.pattern !== '*') return 'ask';
  return rule.action;
}

/** One ruleset's verdict on a whole command line. */
export function decideBash(ruleset: Ruleset, analysis: ShellAnalysis): PermissionAction {
  const conditional = analysis.writesFile || analysis.setsEnvironment;
  let result: PermissionAction = analysis.unparsable || analysis.hiddenCode.length ? blindAction(ruleset) : 'allow';
  if (result === 'deny') return result;
  // A redirection with no command (`> keep.txt` empties the file): only a rule for anything covers it.
  if (analysis.writesFile && analysis.commands.length === 0) result = stricter(result, granted(lastRule(ruleset, ''), true));
  if (result === 'deny') return result;
  for (const command of analysis.commands) {
    result = stricter(result, commandAction(ruleset, command, conditional));
    if (result === 'deny') return result;
  }
  return result;
}

/** The strictest verdict across a session's ruleset and every ancestor's. */
export function decideBashChain(chain: readonly Ruleset[], analysis: ShellAnalysis): PermissionAction {
  let result: PermissionAction = 'allow';
  for (const ruleset of chain) {
    result = stricter(result, decideBash(ruleset, analysis));
    if (result === 'deny') break;
  }
  return result;
}

/** The simple commands a chain denies on their own, to name them in the refusal. */
export function deniedCommands(chain: readonly Ruleset[], analysis: ShellAnalysis): string[] {
  const single = (command: SimpleCommand): ShellAnalysis => ({ ...analysis, commands: [command], unparsable: false, hiddenCode: [] });
  return [...new Set(analysis.commands.filter((c) => decideBashChain(chain, single(c)) === 'deny').map((c) => c.text))];
}

/** What "always allow" records for a command: `git status*` / `npm run*` when the second word is a subcommand, else `ls*`. */
export function commandPrefix(text: string): string {
  const words = text.trim().split(/\s+/);
  const program = words[0] ?? '';
  const second = words[1];
  if (second && /^[a-z][a-z0-9_:-]*$/.test(second)) return `${program} ${second}*`;
  return `${program}*`;
}

/**
 * The patterns "always allow" stores for a line: one per readable simple command (its
 * privileged wrappers too, which need their own allow). Unreadable commands get none: no
 * pattern could cover them.
 */
export function alwaysPatterns(analysis: ShellAnalysis): string[] {
  const patterns: string[] = [];
  for (const command of analysis.commands) {
    for (const layer of command.wrappers) if (layer.privileged) patterns.push(commandPrefix(layer.text));
    // A risky option (`git log --output=F`) is granted as written, so the grant names it.
    if (command.readable) patterns.push(command.riskyOptions?.length ? command.allowText : commandPrefix(command.allowText));
  }
  return [...new Set(patterns)];
}

/**
 * The permission request for running `command`: the simple commands as patterns (what the
 * user sees in events), the "always allow" patterns, and the analysis the gate decides on.
 * Given the working directory, a line that writes one of the program's control files through a
 * redirection or `tee` is marked to be always asked (control-files.ts).
 */
export async function bashPermissionRequest(command: string, cwd?: string): Promise<PermissionRequest> {
  const shell = await analyzeBash(command);
  const texts = [...new Set(shell.commands.map((c) => c.text))];
  const guard = cwd === undefined ? {} : controlFileGuard(await controlFilesOfShell(shell, command, cwd));
  return { permission: 'bash', patterns: texts.length ? texts : [command], subject: command, always: alwaysPatterns(shell), shell, ...guard };
}
