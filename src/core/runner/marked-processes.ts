// The shell that finds a command's processes inside a container: every process whose
// environment holds the command's marker line (`NAME=value`), the command itself and all it
// started, escaped ones (setsid, double fork) too. Contract of `markedProcessesScript`:
// - the script reads the marker from its positional argument `markerArg`, runs `action` with
//   `$p` set to each marked process's pid (never its own shell's), and leaves `found` at 0 when
//   it found one, 1 when not; with `firstOnly` it stops at the first one found;
// - a process caught in the middle of an `exec` shows an empty environment for that instant
//   (the kernel has swapped in the new program's memory before its environment is placed): such
//   a process (not a zombie, whose environment is empty for good) is read again, a few times
//   10 ms apart, until its environment shows or it is gone, so a command's process is not
//   missed for having been exec'ing when the scan passed it. A process whose environment is
//   empty for good (`env -i`) costs one such wait per scan; a zombie costs none;
// - `procRoot` is where the process tree is read (`/proc`; another folder of the same shape
//   for the tests).
// POSIX sh and busybox only: it runs in whatever image the container has, and may run inside
// the command server's own shell (command-server.ts), so it leaves that loop's variables alone.

/** Re-reads of an empty environment, 10 ms apart: an exec's gap lasts microseconds. */
const EMPTY_REREADS = 5;

export interface MarkedScriptOptions {
  /** Shell run for each marked process, with `$p` its pid. */
  action: string;
  /** The positional argument holding the marker line. */
  markerArg: '$1' | '$2';
  /** Stop at the first marked process (a liveness check), instead of acting on all of them. */
  firstOnly: boolean;
  procRoot?: string;
}

export function markedProcessesScript({ action, markerArg, firstOnly, procRoot = '/proc' }: MarkedScriptOptions): string {
  const root = procRoot.replace(/\/+$/, '');
  if (!root.startsWith('/') || /[^\w./-]/.test(root)) throw new Error(`process folder "${procRoot}" must be an absolute path of plain characters`);
  // One read per process, its environment as lines, matched by `case` (a whole line, as `grep
  // -x` would). The read's status tells an empty environment (read, nothing in it: an exec in
  // progress) from one that cannot be read (gone, a kernel thread, another user's process).
  const read = (file: string) => `if e=$(tr "\\0" "\\n" 2>/dev/null < ${file}); then r=1; else r=; fi`;
  const isMarked = '*"$nl$m$nl"*';
  const stop = firstOnly ? '; break' : '';
  const notZombie = `! grep -qs "^State:[[:space:]]*Z" "${root}/$p/status"`;
  return [
    // A newline without writing one: the script may travel as one line (command-server.ts).
    `m="${markerArg}"; found=1; again=; nl=$(printf '\\nx'); nl=\${nl%x};`,
    `for f in ${root}/[0-9]*/environ; do p=\${f#${root}/}; p=\${p%/environ}; [ "$p" = "$$" ] && continue; ${read('"$f"')};`,
    ` case "$nl$e$nl" in ${isMarked}) found=0; ${action}${stop};;`,
    ` "$nl$nl") if [ -n "$r" ] && ${notZombie}; then again="$again $p"; fi;; esac;`,
    'done;',
    // Read again, all together, until each shows its environment or is gone.
    `tries=0; while [ -n "$again" ] && [ $tries -lt ${EMPTY_REREADS} ]${firstOnly ? ' && [ $found = 1 ]' : ''}; do sleep 0.01; tries=$((tries+1)); left=;`,
    ` for p in $again; do ${read(`"${root}/$p/environ"`)};`,
    ` case "$nl$e$nl" in ${isMarked}) found=0; ${action}${stop};; "$nl$nl") if [ -n "$r" ]; then left="$left $p"; fi;; esac;`,
    ' done; again=$left; done;',
  ].join(' ');
}
