// `opencode-ink trust [--revoke] [dir]` and `run --trust` (DESIGN §15). Trust is recorded
// for the project root around `dir` (its git root, or the folder itself), real path.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.js';
import { setTrusted, trustRoot } from '../../core/trust/index.js';

export const TRUST_ONCE_OPTION = ['--trust', "trust this project's own config, agents and commands for this run only"] as const;

export interface TrustCommandOptions {
  revoke: boolean;
}

/** Records or removes trust; returns the line to print. */
export function trustCommand(dir: string | undefined, opts: TrustCommandOptions, cwd: string, env: NodeJS.ProcessEnv): string {
  const target = resolve(cwd, dir ?? '.');
  let isFolder = false;
  try {
    isFolder = statSync(target).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new ConfigError(`trust: "${dir ?? target}" is not a folder.`);
  const root = trustRoot(target);
  const changed = setTrusted(env, root, !opts.revoke);
  if (opts.revoke) {
    return changed ? `No longer trusted: ${root} (its project files can again only narrow what is allowed).` : `${root} was not trusted.`;
  }
  return changed
    ? `Trusted ${root}: its .opencoderc.json, .opencode/ and .claude/ files now apply in full.`
    : `${root} is already trusted.`;
}

export function registerTrustCommand(program: Command, stdout: NodeJS.WritableStream): void {
  program
    .command('trust')
    .description("trust a project's own config, agents and commands (default: the current project)")
    .argument('[dir]', 'a folder inside the project')
    .option('--revoke', 'stop trusting it', false)
    .action((dir: string | undefined, opts: TrustCommandOptions) => {
      stdout.write(`${trustCommand(dir, opts, process.cwd(), process.env)}\n`);
    });
}
