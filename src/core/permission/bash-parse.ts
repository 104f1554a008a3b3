// Turns a bash command line into what permission rules are matched against: every simple
// command a shell would run, wherever it hides — pipelines, lists (`;` `&&` `||` `&`, new
// lines), subshells, `{ }` groups, command and process substitution, arithmetic, function
// and loop bodies, heredocs — plus the scripts handed to `eval`, `bash -c`, `sh -c`,
// `zsh -c`, `dash -c`, `ksh -c` (parsed again, up to MAX_DEPTH levels) and the commands
// run through wrappers (WRAPPERS below). Program names lose their directory, quotes and
// backslashes (`/bin/rm`, `"rm"`, `r''m`, `\rm` are all `rm`). What cannot be known without
// running the line — a program name built from `$VAR` or `$(…)`, a glob or brace expansion
// in the name, a syntax error — is reported as unreadable, never guessed.
import type { Node, Parser } from 'web-tree-sitter';

/** A wrapper the command was run through, as matched (`sudo rm x`). */
export interface WrapperLayer {
  text: string;
  /** Runs the command with other privileges (`sudo`, `doas`): its own rules must allow it too. */
  privileged: boolean;
}

export interface SimpleCommand {
  /** Program (directory, quotes and escapes removed) and arguments, joined by single spaces. */
  text: string;
  /**
   * The same with the program's directory kept when it is not a system one (`./git status`):
   * a program the model may have written itself does not pass as the one a rule names.
   */
  allowText: string;
  /** False when the program name depends on something only running the line would tell. */
  readable: boolean;
  /**
   * Runs code the line does not show (`sh` reading a script file or stdin, `source f`): a
   * deny rule cannot see into it, so it asks wherever a specific deny rule exists.
   */
  runsUnseen?: boolean;
  /** Wrappers seen through, outermost first. */
  wrappers: WrapperLayer[];
}

export interface ShellAnalysis {
  /** Every simple command, in source order. */
  commands: SimpleCommand[];
  /** A redirection writes to a file (`>`, `>>`, `&>`, `>|`, `<>`; `/dev/null` and fd copies excepted). */
  writesFile: boolean;
  /** The files those redirections write, as written (a target built from `$VAR` keeps its source text). */
  redirectTargets: string[];
  /** An environment variable that can change what a program does is set (`PATH=…`, `env LD_PRELOAD=…`). */
  setsEnvironment: boolean;
  /** The line (or a script inside it) has syntax errors or nests too deep to follow. */
  unparsable: boolean;
}

/** How many `bash -c` / `eval` levels are followed before the rest counts as unparsable. */
export const MAX_DEPTH = 4;

const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
const WRITE_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&', '&>|']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash']);
/**
 * Environment variables that only tweak output, locale or a port; setting any other
 * upper-case name (PATH, LD_PRELOAD, HOME, GIT_*, NODE_OPTIONS…) may change what a program runs.
 */
const SAFE_VARIABLES = new Set([
  'CI', 'DEBUG', 'FORCE_COLOR', 'NO_COLOR', 'NODE_ENV', 'NODE_NO_WARNINGS', 'TZ', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES',
  'TERM', 'COLUMNS', 'LINES', 'PORT', 'HOST', 'LOG_LEVEL', 'VERBOSE', 'RUST_BACKTRACE', 'RUST_LOG', 'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'GOOS', 'GOARCH', 'CGO_ENABLED',
]);
/** Lower-case names are shell variables, except the proxy settings programs read. */
const SHELL_VARIABLE = /^[a-z_][a-z0-9_]*$/;
/**
 * A value that stays inert wherever it is expanded later: no `$`, backticks or brackets,
 * which arithmetic (`$((x))`, `[[ $x -eq 1 ]]`) would evaluate as code.
 */
const SAFE_VALUE = /^[\w.,:/@%+=*-]*$/;

interface WrapperSpec {
  /** Short options that take a value (`-n 5` or `-n5`). */
  short?: string;
  /** Long options that take a value (`--signal KILL` or `--signal=KILL`). */
  long?: string[];
  /** Leading operands before the command (timeout's duration, chrt's priority). */
  operands?: number;
  /** Accepts `NAME=value` words before the command. */
  assignments?: boolean;
  privileged?: boolean;
  /** Options after which the words are not a command to run (`command -v rm`). */
  notRunning?: string[];
  /** Options whose value is a file the wrapper writes (`time -o FILE`). */
  writes?: string[];
  /** Options that make the command unreadable (`env -S 'rm x'` splits a string). */
  opaque?: string[];
  /** The command when none is given (xargs runs echo). */
  fallback?: string;
}

/** Programs that run the rest of their arguments as a command. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { short: 'uCS', long: ['--unset', '--chdir', '--split-string'], assignments: true, opaque: ['-S', '--split-string'] },
  command: { notRunning: ['-v', '-V'] },
  builtin: {},
  exec: { short: 'a' },
  nice: { short: 'n', long: ['--adjustment'] },
  nohup: {},
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], operands: 1 },
  time: { short: 'of', long: ['--output', '--format'], writes: ['-o', '--output'] },
  xargs: {
    short: 'adEILnPs',
    long: ['--arg-file', '--delimiter', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
    fallback: 'echo',
  },
  stdbuf: { short: 'ioe', long: ['--input', '--output', '--error'] },
  setsid: {},
  ionice: { short: 'cnpPu', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'] },
  chrt: { short: 'TPD', long: ['--sched-runtime', '--sched-period', '--sched-deadline'], operands: 1 },
  sudo: {
    short: 'ugCDprtUTR',
    long: ['--user', '--group', '--close-from', '--chdir', '--prompt', '--role', '--type', '--other-user', '--command-timeout', '--chroot', '--host'],
    assignments: true,
    privileged: true,
  },
  doas: { short: 'uC', privileged: true },
  busybox: {},
  watch: { short: 'nqd', long: ['--interval', '--equexit'] },
  flock: { short: 'wEc', long: ['--timeout', '--conflict-exit-code', '--command'], operands: 1, opaque: ['-c', '--command'] },
  coproc: {},
  fakeroot: { short: 'sil', long: ['--lib', '--faked'] },
  unbuffer: {},
};

/** Run a file or stdin as shell code: the parser cannot see what they run. */
const SOURCES = new Set(['source', '.']);

interface Word {
  /** The word as the shell would pass it when static; its source text otherwise. */
  value: string;
  static: boolean;
  /** Has unquoted glob or brace-expansion characters, so the shell may turn it into other words. */
  expands: boolean;
}

const GLOB = /(^|[^\\])[*?[]|\{[^}]*(,|\.\.)[^}]*\}/;

function unescapeBare(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

function wordOf(node: Node): Word {
  switch (node.type) {
    case 'word':
    case 'number':
      return { value: unescapeBare(node.text), static: true, expands: GLOB.test(node.text) };
    case 'raw_string':
      return { value: node.text.slice(1, -1), static: true, expands: false };
    case 'string': {
      if (node.namedChildren.some((c) => c?.type !== 'string_content')) return dynamic(node);
      return { value: node.text.slice(1, -1).replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1'), static: true, expands: false };
    }
    case 'concatenation': {
      const parts = node.namedChildren.flatMap((c) => (c ? [wordOf(c)] : []));
      if (node.children.some((c) => c !== null && !c.isNamed)) return dynamic(node);
      return {
        value: parts.map((p) => p.value).join(''),
        static: parts.every((p) => p.static),
        expands: parts.some((p) => p.expands) || GLOB.test(node.text),
      };
    }
    default:
      return dynamic(node);
  }
}

function dynamic(node: Node): Word {
  return { value: node.text, static: false, expands: false };
}

/** A `NAME=value` that cannot change which program runs or what it loads. */
function safeAssignment(name: string, value: Word | undefined): boolean {
  const harmlessName = SAFE_VARIABLES.has(name) || (SHELL_VARIABLE.test(name) && !name.endsWith('_proxy'));
  return harmlessName && (value === undefined || (value.static && SAFE_VALUE.test(value.value)));
}

class Analyzer {
  readonly result: ShellAnalysis = { commands: [], writesFile: false, redirectTargets: [], setsEnvironment: false, unparsable: false };

  constructor(private readonly parser: Parser) {}

  script(source: string, depth: number, wrappers: WrapperLayer[]): void {
    if (depth > MAX_DEPTH) {
      this.result.unparsable = true;
      return;
    }
    const tree = this.parser.parse(source);
    if (!tree) {
      this.result.unparsable = true;
      return;
    }
    try {
      if (tree.rootNode.hasError) this.result.unparsable = true;
      this.walk(tree.rootNode, depth, wrappers);
    } finally {
      tree.delete();
    }
  }

  /** Visits every node (iteratively: a 10,000-deep `&&` chain must not overflow the stack). */
  private walk(root: Node, depth: number, wrappers: WrapperLayer[]): void {
    const stack: Node[] = [root];
    for (let node = stack.pop(); node; node = stack.pop()) {
      this.visit(node, depth, wrappers);
      const children = node.children;
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i];
        if (child) stack.push(child);
      }
    }
  }

  private visit(node: Node, depth: number, wrappers: WrapperLayer[]): void {
    switch (node.type) {
      case 'ERROR':
        this.result.unparsable = true;
        break;
      case 'command':
        this.command(node, depth, wrappers);
        break;
      case 'declaration_command':
      case 'unset_command':
        // `export PATH=…`, `declare -x …`, `unset …`: commands of their own, matched by their text.
        this.add(node.children.flatMap((c) => (c && c.type !== 'comment' ? [c.isNamed ? wordOf(c) : literal(c.text)] : [])), depth, wrappers);
        break;
      case 'variable_assignment':
        // Bare (`PATH=…`), before a command (`PATH=… git`) or declared (`export PATH=…`).
        this.assignment(node, depth, wrappers);
        break;
      case 'file_redirect':
        this.redirect(node);
        break;
      case 'command_substitution':
        // Inside backticks bash first turns \` into ` and parses again: `a \`b\`` runs b.
        if (node.children[0]?.type === '`' && node.text.includes('\\`')) {
          this.script(node.text.slice(1, -1).replace(/\\([`$\\])/g, '$1'), depth + 1, wrappers);
        }
        break;
      default:
        // The grammar leaves some substitutions unparsed (backticks inside `${x:-…}`, a
        // `${x/pattern/}` or an unquoted heredoc); bash still runs them, so text that still
        // holds one is unreadable.
        if (node.isNamed && node.childCount === 0 && !LITERAL_LEAVES.has(node.type) && HIDDEN_SUBSTITUTION.test(node.text) && !inQuotedHeredoc(node)) {
          this.result.unparsable = true;
        }
    }
  }

  private assignment(node: Node, depth: number, wrappers: WrapperLayer[]): void {
    const name = node.childForFieldName('name')?.text ?? '';
    const valueNode = node.childForFieldName('value');
    const value = valueNode ? wordOf(valueNode) : undefined;
    if (!safeAssignment(name, value)) this.result.setsEnvironment = true;
    // `BASH_ALIASES[x]=…` defines an alias, `BASH_CMDS[x]=…` points a name at a program.
    if (value && /^BASH_(ALIASES|CMDS)\[/.test(name)) this.runLater(name.startsWith('BASH_ALIASES') ? value : { ...value, value: shellQuote(value.value) }, depth, wrappers);
  }

  /** Code a command stores to run later (an alias, a trap, a remapped name): checked as if run now. */
  private runLater(code: Word, depth: number, wrappers: WrapperLayer[]): void {
    if (code.static) this.script(code.value, depth + 1, wrappers);
    else this.result.unparsable = true;
  }

  private redirect(node: Node): void {
    const operator = node.children.find((c) => c !== null && !c.isNamed)?.type ?? '';
    if (!WRITE_OPERATORS.has(operator)) return;
    const targets = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'file_descriptor');
    const target = targets[0];
    if (!target || target.type === 'process_substitution') return;
    const word = wordOf(target);
    if (word.static && HARMLESS_TARGETS.has(word.value)) return;
    // `2>&1`, `>&2`, `>&-`: copies or closes a descriptor, writes no file.
    if (operator === '>&' && word.static && /^(\d+|-)$/.test(word.value)) return;
    this.result.writesFile = true;
    this.result.redirectTargets.push(word.value);
  }

  private command(node: Node, depth: number, wrappers: WrapperLayer[]): void {
    const words: Word[] = [];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'command_name') {
        const inner = child.namedChildren[0];
        words.push(inner ? wordOf(inner) : dynamic(child));
      } else if (child.type !== 'variable_assignment' && !child.type.endsWith('redirect') && child.type !== 'comment') {
        words.push(wordOf(child));
      }
    }
    this.add(words, depth, wrappers);
  }

  /** Records one simple command, seeing through wrappers and shells given a script. */
  private add(words: Word[], depth: number, wrappers: WrapperLayer[]): void {
    const [program, ...args] = words;
    if (!program) return;
    const argText = args.map((w) => w.value);
    if (!program.static || program.expands) {
      const text = [program.value, ...argText].join(' ');
      this.result.commands.push({ text, allowText: text, readable: false, wrappers });
      return;
    }
    const slash = program.value.lastIndexOf('/');
    const name = slash >= 0 ? program.value.slice(slash + 1) : program.value;
    const dir = slash > 0 ? program.value.slice(0, slash) : slash === 0 ? '/' : '';
    const text = [name, ...argText].join(' ');
    const allowText = dir === '' || SYSTEM_DIRS.has(dir) ? text : [program.value, ...argText].join(' ');
    const layer: WrapperLayer = { text, privileged: false };

    if (name === 'eval' || name === 'trap' || SHELLS.has(name)) {
      const script = name === 'eval' ? { words: args[0]?.value === '--' ? args.slice(1) : args } : name === 'trap' ? trapAction(args) : shellScript(args);
      if (script) {
        const layers = [...wrappers, layer];
        if (script.words.every((w) => w.static)) this.script(script.words.map((w) => w.value).join(' '), depth + 1, layers);
        else this.result.commands.push({ text, allowText, readable: false, wrappers: layers });
        return;
      }
      if (SHELLS.has(name)) {
        this.result.commands.push({ text, allowText, readable: true, runsUnseen: true, wrappers });
        return;
      }
    }
    if (name === 'alias' || name === 'hash') {
      // `alias ls='rm -rf x'` and `hash -p /bin/rm ls` make a later `ls` run something else.
      for (let i = 0; i < args.length; i++) {
        const arg = args[i]!;
        if (name === 'hash' && arg.value === '-p' && args[i + 1]) this.runLater({ ...args[i + 1]!, value: shellQuote(args[i + 1]!.value) }, depth, [...wrappers, layer]);
        if (name === 'alias' && arg.value.includes('=')) this.runLater({ ...arg, value: arg.value.slice(arg.value.indexOf('=') + 1) }, depth, [...wrappers, layer]);
      }
    }
    if (SOURCES.has(name)) {
      this.result.commands.push({ text, allowText, readable: true, runsUnseen: true, wrappers });
      return;
    }
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (spec) {
      const inner = this.unwrap(spec, args);
      if (inner === 'opaque') {
        this.result.commands.push({ text, allowText, readable: false, wrappers });
        return;
      }
      if (inner) {
        this.add(inner, depth, [...wrappers, { text, privileged: spec.privileged ?? false }]);
        return;
      }
    }
    this.result.commands.push({ text, allowText, readable: true, wrappers });
    if (name === 'find') this.findExec(args, depth, [...wrappers, layer]);
  }

  /** The command a wrapper runs; null when it runs none, 'opaque' when it cannot be told. */
  private unwrap(spec: WrapperSpec, args: Word[]): Word[] | null | 'opaque' {
    let operands = spec.operands ?? 0;
    let i = 0;
    for (; i < args.length; i++) {
      const word = args[i]!;
      if (!word.static) return operands > 0 || word.value.startsWith('-') ? 'opaque' : args.slice(i);
      const v = word.value;
      if (v === '--') {
        i++;
        break;
      }
      if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
        const eq = v.indexOf('=');
        if (!safeAssignment(v.slice(0, eq), { value: v.slice(eq + 1), static: true, expands: false })) this.result.setsEnvironment = true;
        continue;
      }
      if (v.startsWith('--')) {
        const option = v.split('=')[0]!;
        if (spec.opaque?.includes(option)) return 'opaque';
        if (spec.notRunning?.includes(option)) return null;
        if (spec.writes?.includes(option)) this.result.writesFile = true;
        if (spec.long?.includes(option) && !v.includes('=')) i++;
        continue;
      }
      if (v.startsWith('-') && v.length > 1) {
        for (let j = 1; j < v.length; j++) {
          const option = `-${v[j]}`;
          if (spec.opaque?.includes(option)) return 'opaque';
          if (spec.notRunning?.includes(option)) return null;
          if (spec.writes?.includes(option)) this.result.writesFile = true;
          if (spec.short?.includes(v[j]!)) {
            if (j === v.length - 1) i++;
            break;
          }
        }
        continue;
      }
      if (operands > 0) {
        operands--;
        continue;
      }
      break;
    }
    const inner = args.slice(i);
    if (inner.length) return inner;
    return spec.fallback ? [literal(spec.fallback)] : null;
  }

  /** `find … -exec rm {} ;` runs rm. */
  private findExec(args: Word[], depth: number, wrappers: WrapperLayer[]): void {
    for (let i = 0; i < args.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.value)) continue;
      const end = args.findIndex((w, k) => k > i && (w.value === ';' || w.value === '+'));
      const inner = args.slice(i + 1, end < 0 ? args.length : end);
      this.add(inner, depth, wrappers);
      if (end < 0) break;
      i = end;
    }
  }
}

/** The command `trap 'cmd' SIGNAL` runs later; null for `trap -p`, `trap -l` or a reset (`trap - INT`). */
function trapAction(args: Word[]): { words: Word[] } | null {
  let i = 0;
  while (i < args.length && args[i]!.static && /^-[pl]+$/.test(args[i]!.value)) i++;
  if (args[i]?.static && args[i]!.value === '--') i++;
  const action = args[i];
  if (!action || (action.static && (action.value === '-' || action.value === ''))) return null;
  return { words: [action] };
}

/** Leaves whose text bash never expands. */
const LITERAL_LEAVES = new Set(['raw_string', 'ansi_c_string', 'comment']);

/** An unescaped backtick or `$(` : command substitution the grammar did not parse as such. */
const HIDDEN_SUBSTITUTION = /(^|[^\\])(\\\\)*(`|\$\()/;

/** Heredoc text under a quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) is literal. */
function inQuotedHeredoc(node: Node): boolean {
  if (node.type !== 'heredoc_body' && node.type !== 'heredoc_content') return false;
  let redirect = node.parent;
  while (redirect && redirect.type !== 'heredoc_redirect') redirect = redirect.parent;
  const start = redirect?.children.find((c) => c?.type === 'heredoc_start');
  return start !== undefined && start !== null && /['"\\]/.test(start.text);
}

/** `text` as one shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function literal(text: string): Word {
  return { value: text, static: true, expands: false };
}

/** The script of `bash -c 'script' …` (its words, for `eval`-like joining); null without `-c`. */
function shellScript(args: Word[]): { words: Word[] } | null {
  let runsScript = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.static) return runsScript ? { words: [word] } : null;
    const v = word.value;
    if (v === '--' || v === '-') return runsScript && args[i + 1] ? { words: [args[i + 1]!] } : null;
    if (/^[-+][oO]$/.test(v) || v === '--rcfile' || v === '--init-file') {
      i++;
      continue;
    }
    if (v.startsWith('--')) continue;
    if (/^[-+][A-Za-z]+$/.test(v)) {
      if (v.startsWith('-') && v.includes('c')) runsScript = true;
      continue;
    }
    return runsScript ? { words: [word] } : null;
  }
  // `bash -c` with no script: bash refuses to run, but nothing is known about it either.
  return runsScript ? { words: [{ value: '', static: false, expands: false }] } : null;
}

/** Every simple command of `command` and what else a rule needs to know about it. */
export function analyzeCommand(parser: Parser, command: string): ShellAnalysis {
  const analyzer = new Analyzer(parser);
  analyzer.script(command, 0, []);
  return analyzer.result;
}
