// Options that turn a program people allow as read-only into one that writes files, reads
// outside the project or runs another program: `git log --output=F`, `git diff --no-index
// /etc/x /dev/null`, `git -c core.pager=…`, `sort -o F`, `find -delete`, `sed -i`. An allow
// rule for the program (`git log*`) does not cover them; the rule must name the option
// (bash-match.ts). Add a program by adding a RISKS entry. An argument only running the line
// would tell (`$OPT`, a glob that may match a file named `--output=x`) counts as risky too.
import type { Word } from './bash-words.js';

interface ProgramRisks {
  /** Options (the part before any `=`) that write, read elsewhere or run a program. */
  options?: readonly string[];
  /** Short options that take a value, so a cluster stops there (`sort -k2o` has no `-o`). */
  valueShort?: string;
  /** Whole words that are risky wherever they appear (`find -delete`). */
  predicates?: readonly string[];
  /** Options whose value is the next word, so a computed word there is a value, not an option (`git commit -m "$(cat …)"`). */
  valueOptions?: readonly string[];
  /** Program-specific checks over all the arguments. */
  check?: (args: readonly Word[]) => string[];
}

/** git configuration keys that only change how output looks. */
const SAFE_GIT_CONFIG = /^(color\.[\w.-]+|advice\.[\w.-]+|column\.ui|core\.quotepath|log\.date|log\.decorate|diff\.noprefix|i18n\.logoutputencoding|user\.(name|email))$/i;
/** git's global options that take a value as the next word. */
const GIT_GLOBAL_VALUE = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path', '--super-prefix', '--list-cmds', '--attr-source']);
/** Options any git command may take that write a file, run a program or read elsewhere. */
const GIT_OPTIONS = ['--output', '--upload-pack', '--receive-pack', '--exec', '-O', '--open-files-in-pager', '--contents'];

export const RISKS: Readonly<Record<string, ProgramRisks>> = {
  git: {
    check: gitRisks,
    valueOptions: ['-m', '--message', '--author', '--date', '--format', '--pretty', '-n', '--max-count', '--grep', '--since', '--until', '--after', '--before', '-S', '-G', '--committer', '-b', '-B', '--branch'],
  },
  sort: { options: ['-o', '--output', '--compress-program'], valueShort: 'kSotT' },
  find: { predicates: ['-delete', '-fprint', '-fprint0', '-fprintf', '-fls'] },
  sed: { options: ['-i', '--in-place'], valueShort: 'efl' },
  rg: { options: ['--pre'], valueShort: 'AaBCEefgjMmrtT' },
  tree: { options: ['-o'], valueShort: 'oLPI' },
};

/** A path that may lie outside the project: absolute (other than /dev/null), home-relative or climbing with `..`. */
function outsidePath(word: Word): boolean {
  if (!word.static) return true;
  const v = word.value;
  if (v === '/dev/null') return false;
  return v.startsWith('/') || v.startsWith('~') || /(^|\/)\.\.(\/|$)/.test(v);
}

/** A word the shell may turn into any option at run time: it starts with an expansion, or a glob that may match `--output=x`. */
function mayBeOption(word: Word): boolean {
  return (!word.static && !/^["']?[\w./=+-]/.test(word.value)) || (word.glob && /^[*?[]/.test(word.value));
}

/** The option a word spells as far as its text is static (`--output="$f"` is `--output=`). */
function optionText(word: Word): string {
  return word.static ? word.value : (/^[\w./=+-]*/.exec(word.value)?.[0] ?? '');
}

/** The risky options among a program's arguments, as written (`--output`, `-o`, `-c core.pager`). */
export function riskyOptions(program: string, args: readonly Word[]): string[] {
  const risks = Object.hasOwn(RISKS, program) ? RISKS[program] : undefined;
  if (!risks) return [];
  const found: string[] = [];
  if (risks.check) found.push(...risks.check(args));
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = optionText(word);
    if (v === '--' && word.static) break;
    const previous = args[i - 1];
    const isValue = previous?.static === true && (risks.valueOptions?.includes(previous.value) ?? false);
    if (!isValue && mayBeOption(word)) {
      found.push(word.value);
      continue;
    }
    if (risks.predicates?.includes(v)) found.push(v);
    if (!risks.options) continue;
    if (v.startsWith('--')) {
      const option = v.split('=')[0]!;
      if (risks.options.includes(option)) found.push(option);
    } else if (v.startsWith('-')) {
      for (let j = 1; j < v.length; j++) {
        if (risks.options.includes(`-${v[j]}`)) found.push(`-${v[j]}`);
        if (risks.valueShort?.includes(v[j]!)) break;
      }
    }
  }
  return [...new Set(found)];
}

function gitRisks(args: readonly Word[]): string[] {
  const found: string[] = [];
  let i = 0;
  // Global options, before the subcommand.
  for (; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.static || !v.startsWith('-')) break;
    const [option, inline] = v.startsWith('--') && v.includes('=') ? [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)] : [v, undefined];
    const value = inline !== undefined ? { ...word, value: inline } : GIT_GLOBAL_VALUE.has(option) ? args[++i] : undefined;
    if (option === '-c') {
      if (!value?.static || !SAFE_GIT_CONFIG.test(value.value.split('=')[0]!)) found.push('-c');
    } else if (option === '--config-env' || option === '--git-dir' || option === '--super-prefix') {
      found.push(option);
    } else if (option === '--exec-path' && value) {
      found.push(option);
    } else if ((option === '-C' || option === '--work-tree') && (!value || outsidePath(value))) {
      found.push(option);
    }
  }
  const subcommand = args[i]?.value;
  const rest = args.slice(i + 1);
  for (const word of rest) {
    const option = optionText(word).split('=')[0]!;
    if (GIT_OPTIONS.includes(option)) found.push(option);
  }
  // `git diff` compares files outside any repository (with `--no-index`, or when run outside one).
  if (subcommand === 'diff' || subcommand === 'blame') {
    const paths = rest.filter((w) => !(w.static && w.value.startsWith('-')));
    const noIndex = rest.some((w) => w.static && w.value === '--no-index');
    if (paths.some(outsidePath) && (noIndex || subcommand === 'diff')) found.push(noIndex ? '--no-index' : 'diff');
  }
  return found;
}
