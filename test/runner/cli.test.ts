// `opencode-ink runners` and bad runner configuration through the built binary (DESIGN §25):
// each host reachable or why not, the image present or not, this program's containers; a
// malformed host URL or unknown kind is one sentence and exit 2, never a stack trace.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { startPodman, type PodmanService } from '../support/podman.js';

let podman: PodmanService | undefined;
let skip: string | undefined;
let p: CliProject | undefined;

beforeAll(async () => {
  const started = await startPodman();
  if (typeof started === 'string') {
    skip = started;
    console.log(`Skipping the runners command tests that need containers: ${started}`);
  } else podman = started;
}, 120_000);

afterEach(async () => {
  await p?.close();
  p = undefined;
});

afterAll(async () => {
  await podman?.stop();
});

function userConfig(project: CliProject, config: unknown): void {
  mkdirSync(join(project.dir, 'config'), { recursive: true });
  writeFileSync(join(project.dir, 'config', 'config.json'), JSON.stringify(config));
}

describe('opencode-ink runners', () => {
  it('refuses a malformed host URL or an unknown kind in one sentence, exit 2', async () => {
    p = await startCliProject();
    const file = join(p.dir, 'config', 'config.json');
    userConfig(p, { runner: { kind: 'docker', image: 'x', hosts: ['build-1:2375'] } });
    const bad = await runCli(['runners'], { cwd: p.project, env: p.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(`Error: ${file}: runner.hosts[0] is not a host URL: expected unix:///path/to/docker.sock, tcp://host:port or ssh://user@host (got "build-1:2375").`);
    userConfig(p, { runner: { kind: 'kubernetes' } });
    const kind = await runCli(['runners'], { cwd: p.project, env: p.env });
    expect(kind.code).toBe(2);
    expect(kind.stderr.trim().split('\n')).toHaveLength(1);
    expect(kind.stderr).toContain('runner.kind must be');
    expect(kind.stderr).not.toMatch(/\n\s+at /);
  });

  it('lists each host: reachable with the image and this program\'s containers, or why not', async (ctx) => {
    if (skip) return ctx.skip();
    p = await startCliProject();
    const missing = `unix://${p.dir}/no.sock`;
    userConfig(p, { runner: { kind: 'docker', image: podman!.image, hosts: [podman!.url, missing] } });
    const docker = new Docker({ socketPath: podman!.url.slice('unix://'.length) });
    const ours = await docker.createContainer({ name: `opencode-ink-listed-${process.pid}`, Image: podman!.image, Cmd: ['/bin/sh', '-c', 'sleep 600'], Labels: { 'opencode-ink.program': 'opencode-ink', 'opencode-ink.session': 'ses_listed' } });
    try {
      const listed = await runCli(['runners'], { cwd: p.project, env: p.env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(`Runner: docker — each sub-agent's commands run in a container of its own from ${podman!.image}.`);
      expect(listed.stdout).toMatch(new RegExp(`${podman!.url.replace(/[/.]/g, '\\$&')}: reachable, image present, \\d+ containers? of opencode-ink`));
      expect(listed.stdout).toContain(`opencode-ink-listed-${process.pid} (${ours.id.slice(0, 12)}) created, session ses_listed`);
      expect(listed.stdout).toContain(`${missing}: unreachable — no socket`);
      // A base image a batch of children starts from is listed too.
      const loader = await docker.createContainer({ Image: podman!.image, Cmd: ['/bin/true'], Labels: { 'opencode-ink.program': 'opencode-ink', 'opencode-ink.role': 'base' } });
      const base = ((await loader.commit({ repo: 'opencode-ink-base', tag: `listed-${process.pid}`, pause: false })) as { Id: string }).Id;
      await loader.remove({ force: true });
      try {
        const withBase = await runCli(['runners'], { cwd: p.project, env: p.env });
        expect(withBase.stdout).toMatch(/of opencode-ink, 1 base image\n/);
        expect(withBase.stdout).toMatch(new RegExp(`\n  base image \\S*opencode-ink-base:listed-${process.pid} \\(${base.replace(/^sha256:/, '').slice(0, 12)}\\)\n`));
      } finally {
        await docker.getImage(base).remove();
      }
      userConfig(p, { runner: { kind: 'docker', image: 'localhost/opencode-ink-test-absent:1', hosts: [podman!.url] } });
      const absent = await runCli(['runners', '--json'], { cwd: p.project, env: p.env });
      expect(JSON.parse(absent.stdout).hosts[0]).toMatchObject({ url: podman!.url, reachable: true, imagePresent: false });
    } finally {
      await docker.getContainer(ours.id).remove({ force: true });
    }
  });
});
