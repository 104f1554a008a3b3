// The `trust` command's and `--trust`'s place in the command line, without their work: the
// trust store and control-file fingerprints (trust.ts) load only when `trust` runs, so
// `--help` and the other commands do not pay for them.
import type { Command } from 'commander';
import type { TrustCommandOptions } from './trust.js';

export const TRUST_ONCE_OPTION = ['--trust', "trust this project's own config, agents and commands for this run only"] as const;

export function registerTrustCommand(program: Command, stdout: NodeJS.WritableStream): void {
  program
    .command('trust')
    .description("trust a project's own config, agents and commands (default: the current project)")
    .argument('[dir]', 'a folder inside the project')
    .option('--revoke', 'stop trusting it', false)
    .action(async (dir: string | undefined, opts: TrustCommandOptions) => {
      const { trustCommand } = await import('./trust.js');
      stdout.write(`${trustCommand(dir, opts, process.cwd(), process.env)}\n`);
    });
}
