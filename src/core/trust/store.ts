// Which projects the user trusts (DESIGN §15): `trust.json` in the data dir, keyed by the
// real path of each project root (the git root, or the folder itself outside a repository).
// Trust is per exact root: trusting `/` or a parent folder trusts no project below it, and a
// repository nested in a trusted one is a project of its own. A file that cannot be read
// counts as "nothing trusted" plus one warning, never a crash; writes replace the file
// atomically (write a temporary file, then rename) so a crash never leaves half a file.
import { readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { dataDir } from '../config/paths.js';
import { ConfigError } from '../errors.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../private-files.js';
import { findProject } from '../project.js';

export const TRUST_FILE = 'trust.json';

const TrustFileSchema = z.object({
  version: z.literal(1),
  projects: z.record(z.string(), z.object({ trusted_at: z.string() })),
});
type TrustFileData = z.infer<typeof TrustFileSchema>;

export interface TrustList {
  /** Real paths of trusted project roots. */
  roots: ReadonlySet<string>;
  /** Set when the file exists but cannot be used; everything is then untrusted. */
  warning?: string;
}

export function trustFilePath(env: NodeJS.ProcessEnv): string {
  return join(dataDir(env), TRUST_FILE);
}

/**
 * The folder trust is recorded for when working in `cwd`: the project root (the nearest
 * folder holding `.git`, else `cwd` itself), symlinks resolved so one folder has one key.
 */
export function trustRoot(cwd: string): string {
  const root = findProject(resolve(cwd)).root;
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

type ReadResult = { ok: true; data: TrustFileData } | { ok: false; reason: string };

function readFile(file: string): ReadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: true, data: { version: 1, projects: {} } };
    return { ok: false, reason: `cannot be read (${code ?? String(err)})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'is not valid JSON' };
  }
  const result = TrustFileSchema.safeParse(parsed);
  if (!result.success) return { ok: false, reason: 'is not a trust list ({"version": 1, "projects": {...}})' };
  return { ok: true, data: result.data };
}

export function readTrustList(env: NodeJS.ProcessEnv): TrustList {
  const file = trustFilePath(env);
  const read = readFile(file);
  if (!read.ok) {
    return { roots: new Set(), warning: `Warning: ${file} ${read.reason}; every project is treated as untrusted until it is fixed or removed.` };
  }
  return { roots: new Set(Object.keys(read.data.projects)) };
}

/**
 * Records (or with `trusted: false` removes) trust for a project root. Returns false when
 * nothing changed. A file that cannot be read is not overwritten: the user fixes or removes it.
 */
export function setTrusted(env: NodeJS.ProcessEnv, root: string, trusted: boolean, now: Date = new Date()): boolean {
  const file = trustFilePath(env);
  const read = readFile(file);
  if (!read.ok) throw new ConfigError(`${file} ${read.reason}; fix or delete it, then run the command again.`);
  const projects = { ...read.data.projects };
  if (trusted === Object.hasOwn(projects, root)) return false;
  if (trusted) projects[root] = { trusted_at: now.toISOString() };
  else delete projects[root];
  writeAtomically(file, `${JSON.stringify({ version: 1, projects }, null, 2)}\n`);
  return true;
}

function writeAtomically(file: string, text: string): void {
  makePrivateDir(dirname(file));
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, text, { mode: PRIVATE_FILE_MODE });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new ConfigError(`${file}: cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
  }
}
