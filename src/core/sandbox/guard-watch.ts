// Control paths that do not exist yet, watched while sandboxed commands run (DESIGN §19).
//
// Why: on Linux the sandbox makes a path read-only by binding something onto it, and a path
// that does not exist has nothing to bind onto. Creating a placeholder would change the user's
// repository (an empty `.git/commondir` breaks git), so instead:
// - `remove` paths (git's `commondir`, `gitdir`, `config.worktree`, a missing `hooks/`…) are
//   taken away the moment one appears — an inotify watch on the folder that would hold it, and
//   one last look when the last command ends — so neither the user's next `git status` nor
//   this program's own git ever reads one;
// - `report` paths (this program's and Claude Code's control files) are named to the model and
//   left alone: the user may be creating one in an editor at that moment, and trust pinned to
//   the control files' content keeps a file written from inside the sandbox from being applied
//   until the user trusts the project again.
//
// Contract: `hold(paths)` starts watching (or joins the watch already running) and returns a
// release; the last release looks once more and stops every watcher. `takeFindings()` returns
// what was found since the last call and forgets it. A path is only ever acted on if it did
// not exist when the watch started. Nothing here throws: a folder that cannot be watched is
// still looked at when the last command ends.
import { lstatSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { dirname, sep } from 'node:path';

export interface GuardedPath {
  path: string;
  action: 'remove' | 'report';
}

export interface GuardFinding extends GuardedPath {
  /** False when a `remove` path could not be removed. */
  removed: boolean;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The path itself when it exists, else its nearest existing ancestor folder. */
function nearestExisting(path: string): string {
  let dir = dirname(path);
  while (!exists(dir)) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dir;
}

export class GuardWatch {
  private holders = 0;
  private paths: GuardedPath[] = [];
  private readonly watchers = new Map<string, FSWatcher>();
  /** The folders the last `rewatch` meant to watch (some may have refused a watcher). */
  private planned = new Set<string>();
  private readonly found = new Map<string, GuardFinding>();

  /** Starts (or joins) the watch over `paths`, of which only those missing now are watched. */
  hold(paths: readonly GuardedPath[]): () => void {
    const fresh = paths.filter((p) => !exists(p.path) && !this.paths.some((q) => q.path === p.path));
    this.paths.push(...fresh);
    this.holders += 1;
    this.rewatch();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      this.check();
      if (this.holders === 0) {
        for (const watcher of this.watchers.values()) watcher.close();
        this.watchers.clear();
        this.paths = [];
        this.planned = new Set();
      }
    };
  }

  /** What was removed or seen since the last call. */
  takeFindings(): GuardFinding[] {
    const out = [...this.found.values()];
    this.found.clear();
    return out;
  }

  /** One watcher per folder that would hold a guarded path (or its nearest existing ancestor). */
  private rewatch(): void {
    const wanted = new Set(this.paths.map((p) => nearestExisting(p.path)));
    this.planned = wanted;
    for (const [dir, watcher] of this.watchers) {
      if (!wanted.has(dir)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, () => this.check());
        watcher.on('error', () => {
          watcher.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, watcher);
      } catch {
        // Unwatchable (gone, or out of inotify watches): the last release still looks.
      }
    }
    // Anything created between the first look and the watch starting.
    this.check();
  }

  private check(): void {
    let moved = false;
    for (const guarded of this.paths) {
      // A folder on the way that appeared (`.claude/` for `.claude/settings.json`) moves the watch down.
      if (!this.planned.has(nearestExisting(guarded.path))) moved = true;
      const hit = exists(guarded.path) ? guarded.path : this.linkOnTheWay(guarded.path);
      if (!hit) continue;
      if (guarded.action === 'remove') {
        let removed = true;
        try {
          // A symlink is removed as a link, never followed.
          rmSync(hit, { recursive: true, force: true });
        } catch {
          removed = false;
        }
        this.found.set(hit, { path: hit, action: 'remove', removed });
      } else if (!this.found.has(hit)) {
        this.found.set(hit, { path: hit, action: 'report', removed: false });
      }
    }
    if (moved && this.holders > 0) this.rewatch();
  }

  /** A symlink standing for a folder on the way to a guarded path (`.claude -> elsewhere`). */
  private linkOnTheWay(path: string): string | undefined {
    const parts = path.split(sep);
    for (let i = parts.length - 1; i > 1; i--) {
      const prefix = parts.slice(0, i).join(sep);
      try {
        if (lstatSync(prefix).isSymbolicLink()) return this.planned.has(dirname(prefix)) ? prefix : undefined;
        return undefined;
      } catch {
        // Missing: look one folder up.
      }
    }
    return undefined;
  }
}
