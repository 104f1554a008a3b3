// Turns a bash command line into what permission rules are matched against: every simple
// command a shell would run, wherever it hides — pipelines, lists (`;` `&&` `||` `&`, new
// lines), subshells, `{ }` groups, command and process substitution (`$(<file)` reads like
// `cat file`), arithmetic, function and loop bodies, heredocs — plus the scripts handed to
// `eval`, `bash -c`, `sh -c` and other shells (also a here-string or heredoc fed to a shell),
// parsed again up to MAX_DEPTH levels, and the commands run through wrappers
// (bash-wrappers.ts). Words are taken as the shell resolves them without running anything
// (bash-words.ts: quotes, escapes, `$'…'`, `$"…"`, brace expansion), so `/bin/rm`, `"rm"`,
// `r''m`, `\rm`, `$'\x72\x6d'` and `{rm,x}` are all `rm`. What cannot be known without
// running the line — a program name built from `$VAR` or `$(…)`, a glob in the name, a syntax
// error — is reported as unreadable, never guessed; code bash evaluates without a command word
// (arithmetic on variables, `${x@P}`, `${!x}`: bash-hazards.ts) is reported as hidden code, and
// options that make a read-only program write or run things as risky options (bash-flags.ts).
import type { Node, Parser } from 'web-tree-sitter';
import { safeAssignment } from './bash-environment.js';
import { riskyOptions, RISKS } from './bash-flags.js';
import { commandHazard, nodeHazard } from './bash-hazards.js';
import { dynamic, literal, shellQuote, wordOf, wordsOf, type Word } from './bash-words.js';
import { SHELLS, shellInvocation, unwrap, wrapperSpec } from './bash-wrappers.js';

export { WRAPPERS } from './bash-wrappers.js';

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
  /**
   * Options that make this program write files, read outside the project or run another
   * program (`git log --output=F`, `sort -o F`): an allow rule must name them.
   */
  riskyOptions?: string[];
  /** Wrappers seen through, outermost first. */
  wrappers: WrapperLayer[];
  /** The words of `text` one by one (a word may hold spaces), for a command run as is. */
  words?: string[];
}

export interface ShellAnalysis {
  /** Every simple command, in source order. */
  commands: SimpleCommand[];
  /** A redirection writes to a file (`>`, `>>`, `&>`, `>|`, `<>`; `/dev/null` and fd copies excepted). */
  writesFile: boolean;
  /** The files those redirections write, as written (a target built from `$VAR` keeps its source text). */
  redirectTargets: string[];
  /** An environment variable that can change what a program runs is set (`PATH=…`, `env LD_PRELOAD=…`). */
  setsEnvironment: boolean;
  /** The line (or a script inside it) has syntax errors or nests too deep to follow. */
  unparsable: boolean;
  /**
   * Why bash may run code that no command word shows (`$((x))` on a variable, `${x@P}`,
   * `${!x}`, `[[ x -lt 1 ]]`): decided like a command nobody can read. Empty when none.
   */
  hiddenCode: string[];
}

/** How many `bash -c` / `eval` levels are followed before the rest counts as unparsable. */
export const MAX_DEPTH = 32;
/** How much script text one line may make the parser read, all levels together. */
const MAX_PARSED_CHARS = 256_000;
/** Reasons kept for hidden code: the first few say enough. */
const MAX_REASONS = 5;

const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
const WRITE_OPERATORS = new Set(['>', '>>', '&>', '&>>', '>|', '<>', '>&', '&>|']);
/** Tokens that may sit in an error node that only a `{word` at a command's start caused. */
const LIST_TOKENS = new Set([';', '&&', '||', '|', '&', '\n', ';;']);

/** Run a file or stdin as shell code: the parser cannot see what they run. */
const SOURCES = new Set(['source', '.']);

/** What a command reads as its standard input: a static text, something unknown, or nothing the line sets. */
type Stdin = Word | undefined;

class Analyzer {
  readonly result: ShellAnalysis = { commands: [], writesFile: false, redirectTargets: [], setsEnvironment: false, unparsable: false, hiddenCode: [] };
  private parsedChars = 0;

  constructor(private readonly parser: Parser) {}

  script(source: string, depth: number, wrappers: WrapperLayer[]): void {
    this.parsedChars += source.length;
    if (depth > MAX_DEPTH || this.parsedChars > MAX_PARSED_CHARS) {
      this.result.unparsable = true;
      return;
    }
    const tree = this.parser.parse(source);
    if (!tree) {
      this.result.unparsable = true;
      return;
    }
    try {
      this.walk(tree.rootNode, depth, wrappers, tree.rootNode.hasError);
    } finally {
      cachedChildren = undefined;
      tree.delete();
    }
  }

  private hazard(reason: string | undefined): void {
    if (reason && this.result.hiddenCode.length < MAX_REASONS) this.result.hiddenCode.push(reason);
  }

  /**
   * Visits every node (iteratively: a 10,000-deep `&&` chain must not overflow the stack),
   * with its parent: web-tree-sitter finds `node.parent` by descending from the root, which
   * would make deep lines quadratic.
   */
  private walk(root: Node, depth: number, wrappers: WrapperLayer[], hasError: boolean): void {
    const stack: [Node, Node | null][] = [[root, null]];
    for (let entry = stack.pop(); entry; entry = stack.pop()) {
      const [node, parent] = entry;
      // A node the grammar had to invent (a missing `fi`, `)`) is a syntax error; only a tree with errors has one.
      if (hasError && node.isMissing) this.result.unparsable = true;
      this.visit(node, parent, depth, wrappers);
      const children = node.children;
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i];
        if (child) stack.push([child, node]);
      }
    }
  }

  private visit(node: Node, parent: Node | null, depth: number, wrappers: WrapperLayer[]): void {
    if (this.result.hiddenCode.length < MAX_REASONS) this.hazard(nodeHazard(node));
    switch (node.type) {
      case 'ERROR':
        if (!onlyGluedBraces(node)) this.result.unparsable = true;
        break;
      case 'command':
        this.command(node, parent, depth, wrappers);
        break;
      case 'command_name':
        // `&& {a,b}` in an error node: a command name with no command around it.
        if (parent?.type === 'ERROR') {
          const inner = node.namedChildren[0];
          this.add(inner ? wordsOf(inner, gluedBrace(node, parent)) : [dynamic(node)], depth, wrappers, undefined);
        }
        break;
      case 'declaration_command':
      case 'unset_command':
        // `export PATH=…`, `declare -x …`, `unset …`: commands of their own, matched by their text.
        this.add(node.children.flatMap((c) => (c && c.type !== 'comment' ? [c.isNamed ? wordOf(c) : literal(c.text)] : [])), depth, wrappers, undefined);
        break;
      case 'variable_assignment':
        // Bare (`PATH=…`), before a command (`PATH=… git`) or declared (`export PATH=…`).
        this.assignment(node, depth, wrappers);
        break;
      case 'file_redirect':
        this.redirect(node);
        break;
      case 'command_substitution':
        this.substitution(node, depth, wrappers);
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

  private substitution(node: Node, depth: number, wrappers: WrapperLayer[]): void {
    // Inside backticks bash first turns \` into ` and parses again: `a \`b\`` runs b.
    if (node.children[0]?.type === '`' && node.text.includes('\\`')) {
      this.script(node.text.slice(1, -1).replace(/\\([`$\\])/g, '$1'), depth + 1, wrappers);
      return;
    }
    // `$(<file)` reads the file as `cat file` would.
    const inner = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
    if (inner.length === 1 && inner[0]!.type === 'file_redirect' && operatorOf(inner[0]!) === '<') {
      const target = inner[0]!.namedChildren.find((c) => c !== null && c.type !== 'file_descriptor');
      this.add([literal('cat'), ...(target ? wordsOf(target) : [])], depth, wrappers, undefined);
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
    const operator = operatorOf(node);
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

  private command(node: Node, parent: Node | null, depth: number, wrappers: WrapperLayer[]): void {
    const words: Word[] = [];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'command_name') {
        const inner = child.namedChildren[0];
        words.push(...(inner ? wordsOf(inner, gluedBrace(node, parent)) : [dynamic(child)]));
      } else if (child.type !== 'variable_assignment' && !child.type.endsWith('redirect') && child.type !== 'comment') {
        words.push(...wordsOf(child));
      }
    }
    this.add(words, depth, wrappers, stdinOf(node, parent));
  }

  /** Records one simple command, seeing through wrappers and shells given a script. */
  private add(words: Word[], depth: number, wrappers: WrapperLayer[], stdin: Stdin): void {
    const [program, ...args] = words;
    if (!program) return;
    const argText = args.map((w) => w.value);
    if (!program.static || program.glob) {
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
    this.hazard(commandHazard(name, args));

    if (name === 'eval' || name === 'trap') {
      const script = name === 'eval' ? (args[0]?.value === '--' ? args.slice(1) : args) : trapAction(args);
      if (script) this.scriptWords(script, depth, [...wrappers, layer], { text, allowText });
      else this.result.commands.push({ text, allowText, readable: true, wrappers });
      return;
    }
    if (SHELLS.has(name)) {
      const run = shellInvocation(args);
      if (run.kind === 'script') this.scriptWords(run.words, depth, [...wrappers, layer], { text, allowText });
      else if (run.kind === 'stdin' && stdin?.static) this.script(stdin.value, depth + 1, [...wrappers, layer]);
      else this.result.commands.push({ text, allowText, readable: true, runsUnseen: true, wrappers });
      return;
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
    const spec = wrapperSpec(name);
    if (spec) {
      const { run, writesFile, setsEnvironment } = unwrap(spec, args);
      if (writesFile) this.result.writesFile = true;
      if (setsEnvironment) this.result.setsEnvironment = true;
      const layers = [...wrappers, { text, privileged: spec.privileged ?? false }];
      switch (run.kind) {
        case 'opaque':
          this.result.commands.push({ text, allowText, readable: false, wrappers });
          return;
        case 'command':
          this.add(run.words, depth, layers, stdin);
          return;
        case 'script':
          this.scriptWords(run.words, depth, layers, { text, allowText });
          return;
        case 'shell':
          if (stdin?.static) this.script(stdin.value, depth + 1, layers);
          else this.result.commands.push({ text, allowText, readable: true, runsUnseen: true, wrappers });
          return;
        case 'none':
          break;
      }
    }
    const risky = riskyOptions(name, args);
    // `xargs git log` appends words from its input, which may be any option.
    if (Object.hasOwn(RISKS, name) && wrappers.some((w) => w.text.startsWith('xargs'))) risky.push('(arguments read by xargs)');
    this.result.commands.push({ text, allowText, readable: true, wrappers, words: [name, ...argText], ...(risky.length ? { riskyOptions: risky } : {}) });
    if (name === 'find') this.findExec(args, depth, [...wrappers, layer]);
  }

  /** A script given as words (`eval a b`, `bash -c 'a'`): parsed again when static, unreadable otherwise. */
  private scriptWords(words: Word[], depth: number, layers: WrapperLayer[], runner: { text: string; allowText: string }): void {
    if (words.every((w) => w.static)) this.script(words.map((w) => w.value).join(' '), depth + 1, layers);
    else this.result.commands.push({ ...runner, readable: false, wrappers: layers });
  }

  /** `find … -exec rm {} ;` runs rm. */
  private findExec(args: Word[], depth: number, wrappers: WrapperLayer[]): void {
    for (let i = 0; i < args.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.value)) continue;
      const end = args.findIndex((w, k) => k > i && (w.value === ';' || w.value === '+'));
      const inner = args.slice(i + 1, end < 0 ? args.length : end);
      this.add(inner, depth, wrappers, undefined);
      if (end < 0) break;
      i = end;
    }
  }
}

function operatorOf(redirect: Node): string {
  return redirect.children.find((c) => c !== null && !c.isNamed)?.type ?? '';
}

let cachedChildren: { id: number; children: (Node | null)[] } | undefined;

/** An error node's children, kept for the next command under the same node (a long line has thousands). */
function childrenOf(parent: Node): (Node | null)[] {
  if (cachedChildren?.id !== parent.id) cachedChildren = { id: parent.id, children: parent.children };
  return cachedChildren.children;
}

/** True when `node` follows a `{` the grammar split off its first word (`{rm,x} y`). */
function gluedBrace(node: Node, parent: Node | null): boolean {
  if (parent?.type !== 'ERROR') return false;
  const siblings = childrenOf(parent);
  const at = siblings.findIndex((c) => c?.id === node.id);
  const before = at > 0 ? siblings[at - 1] : null;
  return before !== null && before !== undefined && before.type === '{' && !before.isNamed && before.endIndex === node.startIndex;
}

/**
 * True when an error node holds nothing but commands that start with a `{word` (which bash
 * reads as a word, brace expansion included, and the grammar as a broken group) and list operators.
 */
function onlyGluedBraces(error: Node): boolean {
  const children = error.children.filter((c): c is Node => c !== null);
  let glued = false;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.isNamed) continue;
    const next = children[i + 1];
    if (child.type === '{' && next && (next.type === 'command' || next.type === 'command_name') && next.startIndex === child.endIndex) {
      glued = true;
      continue;
    }
    if (!LIST_TOKENS.has(child.type)) return false;
  }
  return glued;
}

/** The text a command reads on stdin when the line gives it one (a here-string, a heredoc); unknown for pipes and files. */
function stdinOf(command: Node, parent: Node | null): Stdin {
  const unknown: Word = { value: '', static: false, glob: false };
  let found: Stdin;
  const consider = (redirect: Node): void => {
    if (redirect.type === 'herestring_redirect') {
      const target = redirect.namedChildren.find((c) => c !== null);
      const word = target ? wordOf(target) : unknown;
      found = word.static ? { ...word, value: `${word.value}\n` } : unknown;
    } else if (redirect.type === 'heredoc_redirect') {
      found = heredocText(redirect);
    } else if (redirect.type === 'file_redirect' && ['<', '<>'].includes(operatorOf(redirect))) {
      found = unknown;
    }
  };
  if (parent?.type === 'pipeline' && parent.namedChildren[0]?.id !== command.id) found = unknown;
  if (parent?.type === 'redirected_statement' && parent.namedChildren[0]?.id === command.id) {
    for (const child of parent.namedChildren) if (child) consider(child);
  }
  for (const child of command.namedChildren) if (child) consider(child);
  return found;
}

/** A heredoc's text as the command reads it: literal under a quoted delimiter, expanded otherwise (static only). */
function heredocText(redirect: Node): Word {
  const start = redirect.children.find((c) => c?.type === 'heredoc_start');
  const body = redirect.children.find((c) => c?.type === 'heredoc_body');
  const stripTabs = redirect.children.some((c) => c?.type === '<<-');
  const quotedDelimiter = start !== undefined && start !== null && /['"\\]/.test(start.text);
  if (!body) return literal('');
  if (!quotedDelimiter && body.namedChildren.some((c) => c?.type !== 'heredoc_content')) return { value: body.text, static: false, glob: false };
  let text = quotedDelimiter ? body.text : body.text.replace(/\\\n/g, '').replace(/\\([$`\\])/g, '$1');
  if (stripTabs) text = text.replace(/^\t+/gm, '');
  return literal(text);
}

/** The command `trap 'cmd' SIGNAL` runs later; null for `trap -p`, `trap -l` or a reset (`trap - INT`). */
function trapAction(args: Word[]): Word[] | null {
  let i = 0;
  while (i < args.length && args[i]!.static && /^-[pl]+$/.test(args[i]!.value)) i++;
  if (args[i]?.static && args[i]!.value === '--') i++;
  const action = args[i];
  if (!action || (action.static && (action.value === '-' || action.value === ''))) return null;
  return [action];
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

/** Every simple command of `command` and what else a rule needs to know about it. */
export function analyzeCommand(parser: Parser, command: string): ShellAnalysis {
  const analyzer = new Analyzer(parser);
  analyzer.script(command, 0, []);
  return analyzer.result;
}
