// Kills a command's processes when this program dies without doing it itself: SIGKILL, a
// crash of the runtime, the OOM killer. Node cannot ask the kernel for a death signal
// (prctl(PR_SET_PDEATHSIG)), and the 'exit' hook of process.ts never runs in those cases.
//
// Contract: `guardCommand(marker)` registers a command (by its environment marker, process.ts)
// before it is spawned; `started(pgid)` adds its process group once it has one; `release()`
// forgets it when the command has ended and was stopped. If this process dies while a
// command is registered, every process of its group and every process carrying its marker
// is sent SIGKILL, within moments.
//
// How: one tiny POSIX shell per program (the watchdog), started on first use in a session of
// its own (so terminal signals and the program's process group never reach it), reads
// registrations from a pipe whose only writer is this process. The kernel closes that pipe
// however this process ends; the watchdog then reads end-of-file and kills what is still
// registered: the groups first, then the marked processes found through /proc (twice, for a
// process that forked meanwhile). A normal exit finds nothing left to kill. The pipe's write
// end is close-on-exec, so commands never hold it open.
//
// Limits: without /proc (macOS) only process groups are covered; a process that cleared its
// environment and left the group is not found (as in process.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PROCESS_MARKER_VAR } from './process.js';

const WATCHDOG_SHELL = existsSync('/bin/sh') ? '/bin/sh' : '/bin/bash';

/**
 * Lines on stdin: `m <marker>` and `g <pgid>` register, `- <marker> <pgid>` forgets. Ignores
 * SIGINT and SIGHUP: only the end of its pipe (or an explicit SIGTERM) ends it.
 */
const WATCHDOG_SCRIPT = `
trap '' INT HUP
markers=
groups=
without() { out=; for x in $2; do [ "$x" = "$1" ] || out="$out $x"; done; }
while read -r op a b; do
  case $op in
    m) markers="$markers $a" ;;
    g) groups="$groups $a" ;;
    -) without "$a" "$markers"; markers=$out; without "$b" "$groups"; groups=$out ;;
  esac
done
for g in $groups; do kill -9 -"$g" 2>/dev/null; done
for round in 1 2; do
  set --
  for m in $markers; do set -- "$@" -e "${PROCESS_MARKER_VAR}=$m"; done
  [ $# -gt 0 ] || exit 0
  pids=$(grep -lsaF "$@" /proc/[0-9]*/environ 2>/dev/null | sed 's#^/proc/\\([0-9]*\\)/environ$#\\1#')
  [ -n "$pids" ] || exit 0
  kill -9 $pids 2>/dev/null
done
`;

/** The registrations the watchdog holds, to give a new one if the old one was killed. */
const registered = new Map<string, number | undefined>();
let watchdog: ChildProcess | undefined;

function send(line: string): void {
  const stdin = ensureWatchdog()?.stdin;
  if (!stdin || stdin.destroyed) return;
  stdin.write(`${line}\n`);
}

function ensureWatchdog(): ChildProcess | undefined {
  if (watchdog && watchdog.exitCode === null && watchdog.signalCode === null) return watchdog;
  let child: ChildProcess;
  try {
    child = spawn(WATCHDOG_SHELL, ['-c', WATCHDOG_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
  } catch {
    return undefined;
  }
  if (child.pid === undefined) return undefined;
  watchdog = child;
  // It must never keep this program alive, nor crash it when it is gone.
  child.unref();
  child.on('error', () => {});
  const stdin = child.stdin;
  stdin?.on('error', () => {});
  if (stdin && 'unref' in stdin && typeof stdin.unref === 'function') stdin.unref();
  child.once('exit', () => {
    if (watchdog === child) watchdog = undefined;
  });
  // A replacement watchdog learns everything still registered.
  const lines = [...registered].flatMap(([marker, pgid]) => [`m ${marker}`, ...(pgid === undefined ? [] : [`g ${pgid}`])]);
  if (lines.length) stdin?.write(`${lines.join('\n')}\n`);
  return child;
}

export interface OrphanGuard {
  /** The command has a process group now. */
  started(pgid: number): void;
  /** The command ended and was stopped: nothing of it is left to kill. */
  release(): void;
}

/** Registers a command, by its marker, before it is spawned (see the module comment). */
export function guardCommand(marker: string): OrphanGuard {
  registered.set(marker, undefined);
  send(`m ${marker}`);
  let pgid: number | undefined;
  return {
    started(id) {
      pgid = id;
      registered.set(marker, id);
      send(`g ${id}`);
    },
    release() {
      if (!registered.delete(marker)) return;
      send(`- ${marker} ${pgid ?? 0}`);
    },
  };
}

/** The watchdog's pid, for tests; undefined before the first command. */
export function watchdogPid(): number | undefined {
  return watchdog?.pid;
}
