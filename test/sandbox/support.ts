// Helpers for sandbox tests: whether bubblewrap works here (tests that need it are skipped
// with the reason otherwise; CI installs it), and a throwaway home with secrets in it.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectSandbox } from '../../src/core/sandbox/index.js';

const availability = process.platform === 'linux' ? detectSandbox({}) : undefined;
/** Why the real-bwrap tests cannot run here, or undefined when they can. */
export const bwrapMissing: string | undefined =
  availability === undefined ? 'not Linux' : availability.available ? undefined : availability.reason;
if (bwrapMissing) console.warn(`Skipping bubblewrap sandbox tests: ${bwrapMissing}.`);

export interface FakeHome {
  root: string;
  home: string;
  project: string;
  dataDir: string;
  configDir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A folder outside /tmp: every sandboxed command gets a private, empty /tmp, which would hide
 * a home under it for the wrong reason.
 */
export function makeVisibleTempDir(prefix: string): string {
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  return realpathSync(mkdtempSync(join(base, prefix)));
}

/** A home with ~/.ssh/id_rsa and ~/.aws/credentials, the program's dirs in it, and a git project. */
export function fakeHome(): FakeHome {
  const root = makeVisibleTempDir('oci-sandbox-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  const dataDir = join(home, '.local', 'share', 'opencode-ink');
  const configDir = join(home, '.config', 'opencode-ink');
  for (const dir of [join(home, '.ssh'), join(home, '.aws'), dataDir, configDir, join(project, '.git', 'hooks')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
  writeFileSync(join(home, '.aws', 'credentials'), 'aws secret\n');
  writeFileSync(join(dataDir, 'sessions.db'), 'sessions\n');
  writeFileSync(join(configDir, 'config.json'), '{}\n');
  writeFileSync(join(project, 'README.md'), 'hello\n');
  return { root, home, project, dataDir, configDir, env: { HOME: home } };
}
