// Which projects the user trusts (DESIGN §15): `trust.json` in the data dir, keyed by the
// real path of each project root (the git root, or the folder itself outside a repository),
// each with the fingerprint of its control files taken when it was trusted (control-files.ts):
//   {"version": 2, "projects": {"<root>": {"trusted_at": "<ISO time>", "pinned_at": "<ISO time>",
//     "control_files": {"<folder, . for the root>": {"<path from the root>": "sha256:<hex>", …}}}}}
// A version 1 file (entries without `control_files`) is still read: such an entry is pinned on
// the project's next start, as it is then (trust on first use). The user trusted that project
// before pins existed, and refusing every upgraded user's trust at once would only teach them
// to re-trust without looking; what changed before the upgrade cannot be known either way.
// Every write is version 2.
// Trust is per exact root: trusting `/` or a parent folder trusts no project below it, and a
// repository nested in a trusted one is a project of its own. A file that cannot be read
// counts as "nothing trusted" plus one warning, never a crash; writes replace the file
// atomically (write a temporary file, then rename) so a crash never leaves half a file.
import { readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { builtSchema, lazySchema } from '../lazy-schema.js';
import { dataDir } from '../config/paths.js';
import { ConfigError } from '../errors.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../private-files.js';
import { findProject } from '../project.js';
import type { ControlPins } from './control-files.js';

export const TRUST_FILE = 'trust.json';

const TrustEntrySchema = lazySchema(() =>
  z.object({
    trusted_at: z.string(),
    pinned_at: z.string().optional(),
    control_files: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  }),
);
const TrustFileSchema = lazySchema(() =>
  z.object({
    version: z.union([z.literal(1), z.literal(2)]),
    projects: z.record(z.string(), builtSchema(TrustEntrySchema)),
  }),
);
type TrustFileData = z.infer<typeof TrustFileSchema>;
type TrustEntryData = z.infer<typeof TrustEntrySchema>;

export interface TrustList {
  /** Real paths of trusted project roots. */
  roots: ReadonlySet<string>;
  /** Each trusted root's pins; undefined for an entry from a version 1 file, not pinned yet. */
  pins: ReadonlyMap<string, ControlPins | undefined>;
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
    if (code === 'ENOENT') return { ok: true, data: { version: 2, projects: {} } };
    return { ok: false, reason: `cannot be read (${code ?? String(err)})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'is not valid JSON' };
  }
  const result = TrustFileSchema.safeParse(parsed);
  if (!result.success) return { ok: false, reason: 'is not a trust list ({"version": 2, "projects": {...}})' };
  return { ok: true, data: result.data };
}

export function readTrustList(env: NodeJS.ProcessEnv): TrustList {
  const file = trustFilePath(env);
  const read = readFile(file);
  if (!read.ok) {
    return { roots: new Set(), pins: new Map(), warning: `Warning: ${file} ${read.reason}; every project is treated as untrusted until it is fixed or removed.` };
  }
  const entries = Object.entries(read.data.projects);
  return { roots: new Set(entries.map(([root]) => root)), pins: new Map(entries.map(([root, entry]) => [root, entry.control_files])) };
}

export interface TrustChange {
  /** When trust is recorded; now by default. */
  now?: Date;
  /** The control files' fingerprint to pin (control-files.ts); trusting pins it, merged over the entry's pins of other folders. */
  pins?: ControlPins;
}

/**
 * Records (or with `trusted: false` removes) trust for a project root; trusting an already
 * trusted root re-pins its control files. Returns false when nothing changed. A file that
 * cannot be read is not overwritten: the user fixes or removes it.
 */
export function setTrusted(env: NodeJS.ProcessEnv, root: string, trusted: boolean, change: TrustChange = {}): boolean {
  const now = change.now ?? new Date();
  return updateEntry(env, root, (entry) => {
    if (!trusted) return undefined;
    const pins = change.pins ? { ...entry?.control_files, ...change.pins } : entry?.control_files;
    if (entry && JSON.stringify(pins) === JSON.stringify(entry.control_files)) return entry;
    return { trusted_at: entry?.trusted_at ?? now.toISOString(), ...(pins ? { pinned_at: now.toISOString(), control_files: pins } : {}) };
  });
}

/** Trust on first use for an entry of a version 1 file: pins `pins` if the entry has none yet. */
export function pinIfUnpinned(env: NodeJS.ProcessEnv, root: string, pins: ControlPins, now: Date = new Date()): boolean {
  return updateEntry(env, root, (entry) => (entry && !entry.control_files ? { ...entry, pinned_at: now.toISOString(), control_files: pins } : entry));
}

/** Reads the file, replaces one entry (undefined: removes it) and writes it back if that changed anything. */
function updateEntry(env: NodeJS.ProcessEnv, root: string, update: (entry: TrustEntryData | undefined) => TrustEntryData | undefined): boolean {
  const file = trustFilePath(env);
  const read = readFile(file);
  if (!read.ok) throw new ConfigError(`${file} ${read.reason}; fix or delete it, then run the command again.`);
  const projects = { ...read.data.projects };
  const before = projects[root];
  const after = update(before);
  if (after === before) return false;
  if (after) projects[root] = after;
  else delete projects[root];
  writeAtomically(file, `${JSON.stringify({ version: 2, projects }, null, 2)}\n`);
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
