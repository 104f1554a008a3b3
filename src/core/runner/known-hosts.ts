// Checking an ssh:// container host's key as `ssh -o StrictHostKeyChecking=yes` would (DESIGN §25).
// Contract:
// - `knownHostsFiles(config, env)` is where keys are looked up: `runner.known_hosts` when set,
//   else the user's `~/.ssh/known_hosts` and the system's `/etc/ssh/ssh_known_hosts`;
// - `hostKeyCheck(host, port, files)` answers for one connection: the host key algorithms to offer
//   (the ones on record for the host first, as OpenSSH does, so a host known by its ECDSA key is
//   not refused for offering Ed25519 first), and `verify(key)`: true only when the key the server
//   shows is on record for `host` (port 22) or `[host]:port`, plain or hashed (`|1|salt|hash`),
//   with `*`/`?` wildcards and `!` negations; never when it is `@revoked`. When refused, `refusal`
//   says why in one sentence naming the host and what to do (unknown host, changed key, revoked);
// - the files are read at each check, so a key added meanwhile is seen without a restart; an
//   unreadable or missing file counts as empty.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const SYSTEM_KNOWN_HOSTS = '/etc/ssh/ssh_known_hosts';

export type HostKeyAlgorithm = 'ssh-ed25519' | 'ecdsa-sha2-nistp256' | 'ecdsa-sha2-nistp384' | 'ecdsa-sha2-nistp521' | 'rsa-sha2-512' | 'rsa-sha2-256' | 'ssh-rsa';

/** ssh2's default host key algorithms, in its order (lib/protocol/constants.js). */
const DEFAULT_HOST_KEY_ALGORITHMS: HostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** The key types a known_hosts line names, and the signature algorithms that prove them. */
const ALGORITHMS_OF_KEY_TYPE: Partial<Record<string, HostKeyAlgorithm[]>> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

export function knownHostsFiles(configured: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (configured) return [configured.startsWith('~/') ? join(env.HOME || homedir(), configured.slice(2)) : configured];
  return [join(env.HOME || homedir(), '.ssh', 'known_hosts'), SYSTEM_KNOWN_HOSTS];
}

interface KnownKey {
  file: string;
  line: number;
  marker: '' | '@revoked' | '@cert-authority';
  type: string;
  /** The key blob, base64 as written. */
  blob: string;
}

/** How known_hosts names a host: `host` on port 22, `[host]:port` elsewhere. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function wildcardMatch(pattern: string, text: string): boolean {
  const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return regex.test(text);
}

function hashedMatch(entry: string, name: string): boolean {
  const [, magic, salt, hash] = entry.split('|');
  if (magic !== '1' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Whether a line's host field names `name`: one hashed entry, or patterns where a negated match wins. */
function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|')) return hashedMatch(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (wildcardMatch(pattern.slice(1), name)) return false;
    } else if (wildcardMatch(pattern, name)) matched = true;
  }
  return matched;
}

function keysFor(name: string, files: readonly string[]): KnownKey[] {
  const found: KnownKey[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const [index, raw] of text.split('\n').entries()) {
      const fields = raw.trim().split(/\s+/);
      if (!fields[0] || fields[0].startsWith('#')) continue;
      const marker = fields[0] === '@revoked' || fields[0] === '@cert-authority' ? fields.shift()! : '';
      const [hosts, type, blob] = fields;
      if (!hosts || !type || !blob || !hostFieldMatches(hosts, name)) continue;
      found.push({ file, line: index + 1, marker: marker as KnownKey['marker'], type, blob });
    }
  }
  return found;
}

export interface HostKeyCheck {
  /** Host key algorithms for ssh2 to offer, those on record first. */
  algorithms: HostKeyAlgorithm[];
  verify(key: Buffer): boolean;
  /** Why the last `verify` refused, in one sentence; undefined when it accepted. */
  refusal: string | undefined;
}

function keyType(key: Buffer): string {
  const length = key.length >= 4 ? key.readUInt32BE(0) : 0;
  return key.subarray(4, 4 + length).toString('latin1');
}

export function hostKeyCheck(host: string, port: number, files: readonly string[]): HostKeyCheck {
  const name = knownHostsName(host, port);
  const portFlag = port === 22 ? '' : ` -p ${port}`;
  const where = files.join(' or ');
  const onRecord = keysFor(name, files).filter((known) => known.marker === '');
  const preferred = [...new Set(onRecord.flatMap((known) => ALGORITHMS_OF_KEY_TYPE[known.type] ?? []))];
  const check: HostKeyCheck = {
    algorithms: [...preferred, ...DEFAULT_HOST_KEY_ALGORITHMS.filter((algorithm) => !preferred.includes(algorithm))],
    refusal: undefined,
    verify(key: Buffer): boolean {
      const blob = key.toString('base64');
      const type = keyType(key);
      const known = keysFor(name, files);
      const revoked = known.find((entry) => entry.marker === '@revoked' && entry.blob === blob);
      if (revoked) {
        check.refusal = `The ssh host key of ${name} is marked revoked in ${revoked.file} (line ${revoked.line}); the connection was refused.`;
        return false;
      }
      const plain = known.filter((entry) => entry.marker === '');
      if (plain.some((entry) => entry.blob === blob)) {
        check.refusal = undefined;
        return true;
      }
      const sameType = plain.find((entry) => entry.type === type);
      if (sameType) {
        check.refusal =
          `The ssh host key of ${name} has changed since it was recorded in ${sameType.file} (line ${sameType.line}), so the connection was refused ` +
          `(someone may be intercepting it); if the host was really reinstalled, remove the old key with \`ssh-keygen -R '${name}'\` and connect once with \`ssh${portFlag} ${host}\` to record the new one.`;
        return false;
      }
      check.refusal =
        `The ssh host key of ${name} (${type}) is not in ${where}, so the connection was refused; ` +
        `connect once with \`ssh${portFlag} ${host}\` to check and record it, then try again.`;
      return false;
    },
  };
  return check;
}
