// Programs that run another command, and how to find it in their arguments: wrappers that
// take the command as their remaining words (`env`, `nice`, `timeout`, `taskset`, `strace`,
// `chroot`, `sudo`, …), ones that take it as a string a shell runs (`su -c`, `script -c`,
// `flock -c`, `sg GROUP 'cmd'`), `env -S` splitting a string into more arguments, and the
// shells themselves (`bash -c SCRIPT`, a script file, or a script read from stdin). Pure
// functions over words: what the wrapper runs, and whether its own options write a file or
// set the environment. Anything that cannot be told from the words says so ('opaque').
import { safeAssignment } from './bash-environment.js';
import { literal, type Word } from './bash-words.js';

interface WrapperSpec {
  /** Short options that take a value (`-n 5` or `-n5`). */
  short?: string;
  /** Long options that take a value (`--signal KILL` or `--signal=KILL`). */
  long?: string[];
  /** Leading operands before the command (timeout's duration, chrt's priority, chroot's root). */
  operands?: number;
  /** Accepts `NAME=value` words before the command. */
  assignments?: boolean;
  /** Runs the command with other privileges (`sudo`, `doas`, `su`): its own rules must allow it too. */
  privileged?: boolean;
  /** Options after which the words are not a command to run (`command -v rm`, `taskset -p`). */
  notRunning?: string[];
  /** Options whose value is a file the wrapper writes (`time -o FILE`, `strace -o FILE`). */
  writes?: string[];
  /** Options that make the command unreadable. */
  opaque?: string[];
  /** Options whose value is a script a shell runs (`su -c 'rm x'`, `script -qc 'rm x'`). */
  script?: string[];
  /** Options whose value is split into more arguments (`env -S 'rm x'`). */
  split?: string[];
  /** Options whose value is a `NAME=value` put in the command's environment (`strace -E`). */
  environment?: string[];
  /** Operands are never the command (su's user, script's log file): only a script option or a shell runs. */
  operandsOnly?: boolean;
  /** The first operand is a user and the words after it are arguments to that user's shell (`su root -c 'rm x'`). */
  shellArguments?: boolean;
  /** Options that switch operandsOnly off (`runuser -u USER COMMAND`). */
  commandForm?: string[];
  /** The words after the operands are one script, joined (`sg GROUP 'rm x'`). */
  joinsScript?: boolean;
  /** Starts an interactive shell (reading stdin) when given no command. */
  shellWhenEmpty?: boolean;
  /** The operand is a file it writes, this one when none is given (`script` writes `typescript`). */
  logFile?: string;
  /** The command when none is given (xargs runs echo). */
  fallback?: string;
}

/** Programs that run the rest of their arguments as a command. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { short: 'uCS', long: ['--unset', '--chdir', '--split-string'], assignments: true, split: ['-S', '--split-string'] },
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
  pkexec: { long: ['--user'], privileged: true },
  busybox: {},
  watch: { short: 'nqd', long: ['--interval', '--equexit'] },
  flock: { short: 'wE', long: ['--timeout', '--conflict-exit-code'], operands: 1, script: ['-c', '--command'] },
  coproc: {},
  fakeroot: { short: 'sil', long: ['--lib', '--faked'] },
  unbuffer: {},
  // util-linux and coreutils programs that run a command in a changed context.
  taskset: { operands: 1, notRunning: ['-p', '--pid'] },
  prlimit: { short: 'po', long: ['--pid', '--output'], notRunning: ['-p', '--pid'] },
  unshare: {
    short: 'SGRwl',
    long: ['--setuid', '--setgid', '--root', '--wd', '--propagation', '--setgroups', '--map-user', '--map-group', '--map-users', '--map-groups', '--load-interp'],
    shellWhenEmpty: true,
  },
  nsenter: { short: 'tSGe', long: ['--target', '--setuid', '--setgid', '--env'], shellWhenEmpty: true },
  setarch: { operands: 1, shellWhenEmpty: true },
  linux32: { shellWhenEmpty: true },
  linux64: { shellWhenEmpty: true },
  setpriv: {
    long: ['--reuid', '--regid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--pdeathsig', '--selinux-label', '--apparmor-profile', '--landlock-access', '--landlock-rule', '--seccomp-filter'],
  },
  choom: { short: 'np', long: ['--adjust', '--pid'], notRunning: ['-p', '--pid'] },
  chroot: { long: ['--userspec', '--groups'], operands: 1, shellWhenEmpty: true },
  script: {
    short: 'EIOBTmo',
    long: ['--echo', '--log-in', '--log-out', '--log-io', '--log-timing', '--logging-format', '--output-limit'],
    writes: ['-I', '-O', '-B', '-T', '--log-in', '--log-out', '--log-io', '--log-timing'],
    script: ['-c', '--command'],
    operandsOnly: true,
    shellWhenEmpty: true,
    logFile: 'typescript',
  },
  su: {
    short: 'gGsw',
    long: ['--group', '--supp-group', '--shell', '--whitelist-environment'],
    script: ['-c', '--command', '-C', '--session-command'],
    operandsOnly: true,
    shellArguments: true,
    shellWhenEmpty: true,
    privileged: true,
  },
  runuser: {
    short: 'gGsuw',
    long: ['--group', '--supp-group', '--shell', '--user', '--whitelist-environment'],
    script: ['-c', '--command', '-C', '--session-command'],
    operandsOnly: true,
    shellArguments: true,
    commandForm: ['-u', '--user'],
    shellWhenEmpty: true,
    privileged: true,
  },
  sg: { operands: 1, joinsScript: true, shellWhenEmpty: true, privileged: true },
  strace: { short: 'abeEIoOpPsSuUX', long: ['--output', '--env', '--user', '--attach', '--trace-path', '--string-limit', '--columns', '--signal', '--trace', '--status'], writes: ['-o', '--output'], environment: ['-E', '--env'] },
  ltrace: { short: 'aAeEflnopsuwxX', long: ['--output', '--align', '--indent', '--library'], writes: ['-o', '--output'] },
  eatmydata: {},
  nocache: {},
  torsocks: {},
  catchsegv: {},
};

export type WrapperRun =
  | { kind: 'command'; words: Word[] }
  /** A string a shell runs (`su -c`, `flock -c`, `sg GROUP cmd`): its words, joined with spaces. */
  | { kind: 'script'; words: Word[] }
  /** An interactive shell, reading whatever its stdin gives it. */
  | { kind: 'shell' }
  | { kind: 'none' }
  | { kind: 'opaque' };

export interface Unwrapped {
  run: WrapperRun;
  writesFile: boolean;
  setsEnvironment: boolean;
}

export function wrapperSpec(name: string): WrapperSpec | undefined {
  return Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
}

const HARMLESS_LOG_FILES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** What a wrapper given `given` as its arguments runs. */
export function unwrap(spec: WrapperSpec, given: Word[]): Unwrapped {
  const result: Unwrapped = { run: { kind: 'none' }, writesFile: false, setsEnvironment: false };
  const done = (run: WrapperRun): Unwrapped => ({ ...result, run });
  const takesValue = (option: string): boolean =>
    option.startsWith('--')
      ? [...(spec.long ?? []), ...(spec.script ?? []), ...(spec.split ?? []), ...(spec.environment ?? []), ...(spec.writes ?? [])].includes(option)
      : (spec.short?.includes(option[1]!) ?? false) || [...(spec.script ?? []), ...(spec.split ?? []), ...(spec.environment ?? [])].includes(option);
  let args = given;
  let operands = spec.operands ?? 0;
  let operandsOnly = spec.operandsOnly ?? false;
  let script: Word | undefined;
  const logFiles: Word[] = [];
  /** Applies one option and its value; a run when the option settles what the wrapper does. */
  const apply = (option: string, value: Word | undefined, rest: Word[]): WrapperRun | Word[] | undefined => {
    if (spec.opaque?.includes(option)) return { kind: 'opaque' };
    if (spec.notRunning?.includes(option)) return { kind: 'none' };
    if (spec.commandForm?.includes(option)) operandsOnly = false;
    if (spec.writes?.includes(option) && !(value?.static && HARMLESS_LOG_FILES.has(value.value))) result.writesFile = true;
    if (spec.environment?.includes(option)) {
      const eq = value?.value.indexOf('=') ?? -1;
      if (!value || eq < 0 || !safeAssignment(value.value.slice(0, eq), { ...value, value: value.value.slice(eq + 1) })) result.setsEnvironment = true;
    }
    if (spec.script?.includes(option)) {
      if (!value) return { kind: 'opaque' };
      script = value;
    }
    if (spec.split?.includes(option)) {
      const words = value?.static ? splitEnvString(value.value) : null;
      if (!words) return { kind: 'opaque' };
      return [...words.map(literal), ...rest];
    }
    return undefined;
  };
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.static) {
      if (operandsOnly) continue;
      return done(operands > 0 || word.value.startsWith('-') ? { kind: 'opaque' } : { kind: 'command', words: args.slice(i) });
    }
    const v = word.value;
    if (v === '--') {
      i++;
      break;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
      const eq = v.indexOf('=');
      if (!safeAssignment(v.slice(0, eq), literal(v.slice(eq + 1)))) result.setsEnvironment = true;
      continue;
    }
    let outcome: WrapperRun | Word[] | undefined;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const option = eq < 0 ? v : v.slice(0, eq);
      let value: Word | undefined = eq < 0 ? undefined : { ...word, value: v.slice(eq + 1) };
      let next = i + 1;
      if (eq < 0 && takesValue(option)) {
        value = args[next];
        next++;
      }
      outcome = apply(option, value, args.slice(next));
      i = next - 1;
    } else if (v.startsWith('-') && v.length > 1) {
      for (let j = 1; j < v.length; j++) {
        const option = `-${v[j]}`;
        if (!takesValue(option)) {
          outcome = apply(option, undefined, args.slice(i + 1));
          if (outcome) break;
          continue;
        }
        const attached = v.slice(j + 1);
        const value = attached ? literal(attached) : args[i + 1];
        const next = attached ? i + 1 : i + 2;
        outcome = apply(option, value, args.slice(next));
        i = next - 1;
        break;
      }
    } else if (v === '-' && operandsOnly) {
      continue;
    } else if (operands > 0) {
      operands--;
      continue;
    } else if (operandsOnly) {
      logFiles.push(word);
      if (spec.shellArguments) return done(suShellArguments(args.slice(i + 1), script));
      continue;
    } else {
      break;
    }
    if (Array.isArray(outcome)) {
      args = outcome;
      i = -1;
    } else if (outcome) {
      return done(outcome);
    }
  }
  if (spec.logFile && !(logFiles[0]?.static && HARMLESS_LOG_FILES.has(logFiles[0].value))) result.writesFile = true;
  if (script) return done({ kind: 'script', words: [script] });
  const inner = operandsOnly ? [] : args.slice(i);
  if (inner.length) {
    if (!spec.joinsScript) return done({ kind: 'command', words: inner });
    return done({ kind: 'script', words: inner.filter((w, k) => !(k === 0 && w.static && w.value === '-c')) });
  }
  if (spec.fallback) return done({ kind: 'command', words: [literal(spec.fallback)] });
  return done(spec.shellWhenEmpty ? { kind: 'shell' } : { kind: 'none' });
}

/** `su USER [ARGS…]`: the arguments after the user go to the user's shell (`su root -- -c 'rm x'`). */
function suShellArguments(rest: Word[], script: Word | undefined): WrapperRun {
  const words = rest[0]?.static && rest[0].value === '--' ? rest.slice(1) : rest;
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    if (!w.static) return { kind: 'opaque' };
    if (w.value === '-c' || w.value === '--command' || w.value === '-C' || w.value === '--session-command') {
      const value = words[k + 1];
      return value ? { kind: 'script', words: [value] } : { kind: 'opaque' };
    }
    if (w.value.startsWith('--command=')) return { kind: 'script', words: [{ ...w, value: w.value.slice('--command='.length) }] };
  }
  if (script) return { kind: 'script', words: [script] };
  return words.length ? { kind: 'opaque' } : { kind: 'shell' };
}

const ENV_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', '#': '#', $: '$', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * GNU `env -S` splitting: whitespace separates, quotes group, backslash escapes. Null when the
 * string expands a variable (`${HOME}`) or is malformed: only running it would tell.
 */
export function splitEnvString(text: string): string[] | null {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  const end = (): void => {
    if (inWord) words.push(current);
    current = '';
    inWord = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '$') return null;
    if (ch === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return null;
      current += text.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '$') return null;
        if (text[i] !== '\\') {
          current += text[i];
          continue;
        }
        const e = text[++i] ?? '';
        if (e === '_') current += ' ';
        else if (e === 'c') return null;
        else if (Object.hasOwn(ENV_ESCAPES, e)) current += ENV_ESCAPES[e];
        else return null;
      }
      if (i >= text.length) return null;
      inWord = true;
    } else if (ch === '\\') {
      const e = text[++i] ?? '';
      if (e === '_') end();
      else if (e === 'c') {
        end();
        return words;
      } else if (Object.hasOwn(ENV_ESCAPES, e)) {
        current += ENV_ESCAPES[e];
        inWord = true;
      } else return null;
    } else if (/\s/.test(ch)) {
      end();
    } else if (ch === '#' && !inWord) {
      break;
    } else {
      current += ch;
      inWord = true;
    }
  }
  end();
  return words;
}

/** Shells whose `-c` string, script file or stdin is shell code. */
export const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'ksh93', 'mksh', 'ash', 'rbash', 'yash', 'posh', 'fish', 'csh', 'tcsh']);

/** Paths that name the shell's own standard input. */
const STDIN_PATHS = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

export type ShellRun =
  /** `bash -c SCRIPT`: the script's words (one, or a non-static one). */
  | { kind: 'script'; words: Word[] }
  /** Reads the script from stdin (`bash`, `sh -s`, `bash /dev/stdin`). */
  | { kind: 'stdin' }
  /** Runs a script file the line does not show. */
  | { kind: 'file' };

/** What a shell given `args` runs. */
export function shellInvocation(args: Word[]): ShellRun {
  let runsScript = false;
  let readsStdin = false;
  const operand = (word: Word | undefined): ShellRun => {
    if (runsScript) return { kind: 'script', words: [word ?? { value: '', static: false, glob: false }] };
    if (readsStdin || !word) return { kind: 'stdin' };
    return word.static && STDIN_PATHS.has(word.value) ? { kind: 'stdin' } : { kind: 'file' };
  };
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.static) return operand(word);
    const v = word.value;
    if (v === '--' || v === '-') return operand(args[i + 1]);
    if (/^[-+][oO]$/.test(v) || v === '--rcfile' || v === '--init-file') {
      i++;
      continue;
    }
    if (v.startsWith('--')) {
      if (v === '--command' || v.startsWith('--command=')) {
        runsScript = true;
        if (v.includes('=')) return { kind: 'script', words: [{ ...word, value: v.slice(v.indexOf('=') + 1) }] };
      }
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(v)) {
      if (v.startsWith('-') && v.includes('c')) runsScript = true;
      if (v.startsWith('-') && v.includes('s')) readsStdin = true;
      continue;
    }
    return operand(word);
  }
  // `bash -c` with no script: bash refuses to run, but nothing is known about it either.
  return operand(undefined);
}
