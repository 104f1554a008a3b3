// Host key checking for ssh:// container hosts, against known_hosts files as OpenSSH writes them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runnerConfigSchema } from '../../src/core/runner/config.js';
import { hostKeyCheck, knownHostsFiles } from '../../src/core/runner/known-hosts.js';

const dir = mkdtempSync(join(tmpdir(), 'oc-known-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function makeKey(name: string, type: string): { line: string; blob: Buffer } {
  spawnSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-f', join(dir, name)]);
  const [kind, base64] = readFileSync(join(dir, `${name}.pub`), 'utf8').trim().split(/\s+/);
  return { line: `${kind} ${base64}`, blob: Buffer.from(base64!, 'base64') };
}

const ed = makeKey('ed', 'ed25519');
const ecdsa = makeKey('ec', 'ecdsa');
const other = makeKey('other', 'ed25519');

function file(text: string): string {
  const path = join(dir, `known_hosts_${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, text);
  return path;
}

describe('known_hosts checks', () => {
  it('accepts a key recorded for the host name on port 22 and for [host]:port elsewhere, not across the two', () => {
    const path = file(`build-1.example,10.0.0.5 ${ed.line}\n[build-2.example]:2222 ${ed.line}\n`);
    expect(hostKeyCheck('build-1.example', 22, [path]).verify(ed.blob)).toBe(true);
    expect(hostKeyCheck('10.0.0.5', 22, [path]).verify(ed.blob)).toBe(true);
    expect(hostKeyCheck('build-2.example', 2222, [path]).verify(ed.blob)).toBe(true);
    const wrongPort = hostKeyCheck('build-1.example', 2222, [path]);
    expect(wrongPort.verify(ed.blob)).toBe(false);
    expect(wrongPort.refusal).toMatch(/^The ssh host key of \[build-1\.example\]:2222 \(ssh-ed25519\) is not in .*; connect once with `ssh -p 2222 build-1\.example`/);
  });

  it('matches wildcards, lets a negated pattern win, and refuses a changed or revoked key', () => {
    const path = file(`*.build.example,!evil.build.example ${ed.line}\n@revoked * ${other.line}\n`);
    expect(hostKeyCheck('a.build.example', 22, [path]).verify(ed.blob)).toBe(true);
    expect(hostKeyCheck('evil.build.example', 22, [path]).verify(ed.blob)).toBe(false);
    const changed = hostKeyCheck('b.build.example', 22, [file(`b.build.example ${other.line}\n`)]);
    expect(changed.verify(ed.blob)).toBe(false);
    expect(changed.refusal).toMatch(/has changed since it was recorded in .* \(line 1\).*ssh-keygen -R 'b\.build\.example'/);
    const revoked = hostKeyCheck('c.build.example', 22, [path, file(`c.build.example ${other.line}\n`)]);
    expect(revoked.verify(other.blob)).toBe(false);
    expect(revoked.refusal).toMatch(/marked revoked in .* \(line 2\)/);
  });

  it('offers the key types on record for the host first, and reads the files at each check', () => {
    const path = file(`ec.example ${ecdsa.line}\n`);
    const check = hostKeyCheck('ec.example', 22, [path]);
    expect(check.algorithms[0]).toBe('ecdsa-sha2-nistp256');
    expect(check.algorithms).toContain('ssh-ed25519');
    expect(check.verify(ed.blob)).toBe(false);
    writeFileSync(path, `ec.example ${ecdsa.line}\nec.example ${ed.line}\n`);
    expect(check.verify(ed.blob)).toBe(true);
    expect(hostKeyCheck('nowhere.example', 22, [join(dir, 'missing')]).verify(ed.blob)).toBe(false);
  });

  it('looks in runner.known_hosts when set, else the user’s and the system’s files; a relative path is refused', () => {
    expect(knownHostsFiles(undefined, { HOME: '/home/u' })).toEqual(['/home/u/.ssh/known_hosts', '/etc/ssh/ssh_known_hosts']);
    expect(knownHostsFiles('~/keys/hosts', { HOME: '/home/u' })).toEqual(['/home/u/keys/hosts']);
    const parsed = runnerConfigSchema().safeParse({ known_hosts: 'keys/hosts' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/must be an absolute path or start with ~\//);
  });
});
