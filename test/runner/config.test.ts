// `runner` in the config (DESIGN §25): a bad kind or a malformed host URL stops the start with
// one sentence naming the file and key (exit 2); an agent's `runner:` chooses per agent, and a
// child of a session in a container never leaves it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { effectiveRunnerKind, parseDockerHost, runnerConfigSchema } from '../../src/core/runner/config.js';
import { agentFieldsSchema } from '../../src/core/agents/schema.js';

let root: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oci-runner-config-'));
  mkdirSync(join(root, 'config'));
  mkdirSync(join(root, 'project'));
  env = { OPENCODE_INK_CONFIG_DIR: join(root, 'config'), HOME: join(root, 'home') };
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function loadWith(runner: unknown): { error?: ConfigError; file: string } {
  const file = join(root, 'project', '.opencoderc.json');
  writeFileSync(file, JSON.stringify({ runner }));
  try {
    loadConfig({ cwd: join(root, 'project'), env });
    return { file };
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return { error: err as ConfigError, file };
  }
}

describe('runner config', () => {
  it('defaults to the host and accepts a complete docker runner', () => {
    expect(runnerConfigSchema().parse({})).toMatchObject({ kind: 'host', for: 'subagents', network: false, max_per_host: 8 });
    const { error } = loadWith({ kind: 'docker', hosts: ['unix:///run/podman/podman.sock', 'ssh://ci@build-1', 'tcp://build-2:2376'], image: 'node:20-bookworm', cpus: 2, memory_mb: 4096 });
    expect(error).toBeUndefined();
  });

  it('refuses bad kinds, malformed host URLs and a docker runner without an image in one sentence, exit 2', () => {
    const cases: Array<[unknown, string]> = [
      [{ kind: 'kubernetes' }, 'runner.kind must be'],
      [{ kind: 'docker', image: 'x', hosts: ['build-1:2375'] }, 'runner.hosts[0] is not a host URL: expected unix:///path/to/docker.sock, tcp://host:port or ssh://user@host (got "build-1:2375").'],
      [{ kind: 'docker', image: 'x', hosts: ['unix://run/docker.sock'] }, 'runner.hosts[0] needs an absolute socket path'],
      [{ kind: 'docker', image: 'x', hosts: ['ftp://h'] }, 'runner.hosts[0] has an unknown scheme "ftp://"'],
      [{ kind: 'docker', image: 'x', hosts: ['ssh://u:pw@h'] }, 'runner.hosts[0] must not carry a password'],
      [{ kind: 'docker', image: 'x', hosts: ['tcp://h:2375/v1.41'] }, 'runner.hosts[0] must not have a path'],
      [{ kind: 'docker' }, 'runner.image must name the image containers start from when runner.kind is "docker"'],
      [{ kind: 'docker', image: 'x', max_per_host: 0 }, 'runner.max_per_host must be'],
      [{ kind: 'docker', image: 'x', bogus: 1 }, 'bogus'],
    ];
    for (const [runner, message] of cases) {
      const { error, file } = loadWith(runner);
      expect(error, JSON.stringify(runner)).toBeDefined();
      expect(error!.exitCode).toBe(2);
      expect(error!.message.startsWith(`${file}: `)).toBe(true);
      expect(error!.message).toContain(message);
      expect(error!.message.split('\n')).toHaveLength(1);
    }
  });

  it('parses the three kinds of host', () => {
    expect(parseDockerHost('unix:///var/run/docker.sock')).toMatchObject({ scheme: 'unix', socketPath: '/var/run/docker.sock' });
    expect(parseDockerHost('tcp://build-2:2376')).toMatchObject({ scheme: 'tcp', host: 'build-2', port: 2376 });
    expect(parseDockerHost('ssh://ci@build-1')).toMatchObject({ scheme: 'ssh', host: 'build-1', port: 22, username: 'ci' });
  });

  it('chooses per agent, and never takes a child out of its parent’s container', () => {
    const docker = runnerConfigSchema().parse({ kind: 'docker', image: 'x' });
    const host = runnerConfigSchema().parse({});
    expect(effectiveRunnerKind(docker, { isChild: false, parentKind: undefined, agentRunner: undefined })).toBe('host');
    expect(effectiveRunnerKind(docker, { isChild: true, parentKind: 'host', agentRunner: undefined })).toBe('docker');
    expect(effectiveRunnerKind(docker, { isChild: true, parentKind: 'host', agentRunner: 'host' })).toBe('host');
    expect(effectiveRunnerKind(host, { isChild: true, parentKind: 'host', agentRunner: 'docker' })).toBe('docker');
    expect(effectiveRunnerKind(docker, { isChild: true, parentKind: 'docker', agentRunner: 'host' })).toBe('docker');
    const all = runnerConfigSchema().parse({ kind: 'docker', image: 'img', for: 'all' });
    expect(effectiveRunnerKind(all, { isChild: false, parentKind: undefined, agentRunner: undefined })).toBe('docker');
    expect(effectiveRunnerKind(all, { isChild: true, parentKind: 'docker', agentRunner: 'host' })).toBe('docker');
    expect(runnerConfigSchema().safeParse({ kind: 'docker', image: 'img', for: 'everything' }).success).toBe(false);
    expect(agentFieldsSchema().parse({ runner: 'docker' }).runner).toBe('docker');
    expect(agentFieldsSchema().safeParse({ runner: 'vm' }).success).toBe(false);
  });
});
