// Where the project is: the nearest ancestor holding `.git`, or the working directory.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface ProjectInfo {
  root: string;
  isGitRepo: boolean;
}

export function findProject(cwd: string): ProjectInfo {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return { root: dir, isGitRepo: true };
    const parent = dirname(dir);
    if (parent === dir) return { root: resolve(cwd), isGitRepo: false };
    dir = parent;
  }
}
