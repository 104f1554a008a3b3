// The built binary with OpenAI-compatible providers: `models`, `run -m local/…` against the
// fake Chat Completions server with no Anthropic key at all, and the error sentences for an
// unknown provider and a missing OpenAI key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliProject, type CliProject } from '../support/cli.js';
import { say, startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai.js';

let p: CliProject;
let local: FakeOpenAIServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  p = await startCliProject();
  local = await startFakeOpenAI();
  mkdirSync(join(p.dir, 'config'), { recursive: true });
  writeFileSync(
    join(p.dir, 'config', 'config.json'),
    JSON.stringify({
      provider: {
        local: {
          type: 'openai-compatible',
          baseURL: local.url,
          apiKey: '{env:LOCAL_KEY}',
          models: { 'qwen3-coder': { limit: { context: 32768, output: 4096 }, cost: { input: 0.1, output: 0.2 } } },
        },
      },
    }),
  );
  // No Anthropic key: a run on another provider must not need one.
  env = { ...p.env, ANTHROPIC_API_KEY: '', LOCAL_KEY: 'sk-local-secret' };
});

afterEach(async () => {
  await local.close();
  await p.close();
});

describe('opencode-ink models', () => {
  it('lists built-in and configured providers with context windows and prices as JSON', async () => {
    const result = await runCli(['models', '--json'], { cwd: p.project, env });
    expect(result.code).toBe(0);
    const providers = JSON.parse(result.stdout) as Array<{ name: string; type: string; key: string; base_url: string; models: Array<{ id: string; context: number | null; cost: { input: number; output: number } }> }>;
    expect(providers.map((x) => x.name)).toEqual(['anthropic', 'openai', 'ollama', 'local']);
    const configured = providers.find((x) => x.name === 'local')!;
    expect(configured).toMatchObject({ type: 'openai-compatible', key: 'set', base_url: local.url });
    expect(configured.models).toEqual([{ id: 'local/qwen3-coder', context: 32768, output: 4096, cost: { input: 0.1, output: 0.2 } }]);
    expect(providers.find((x) => x.name === 'ollama')).toMatchObject({ key: 'not needed', base_url: 'http://127.0.0.1:11434/v1', models: [] });
    expect(providers.find((x) => x.name === 'openai')).toMatchObject({ key: 'missing' });
    expect(providers.find((x) => x.name === 'openai')!.models.find((m) => m.id === 'openai/gpt-4.1')).toMatchObject({ cost: { input: 2, output: 8 } });
    expect(result.stdout).not.toContain('sk-local-secret');
  });

  it('prints a table without keys', async () => {
    const result = await runCli(['models'], { cwd: p.project, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^local\s+openai-compatible\s+http:\/\/127\.0\.0\.1:\d+\/v1\s+set\s+config$/m);
    expect(result.stdout).toMatch(/^local\/qwen3-coder\s+32\.8k\s+4\.1k\s+0\.1\s+0\.2$/m);
    expect(result.stdout).toMatch(/^ollama\/<model>\s+-\s+-\s+0\s+0$/m);
    // Claude models show the output limit requests are made with, not "-".
    expect(result.stdout).toMatch(/^anthropic\/claude-sonnet-4-6\s+200\.0k\s+64\.0k\s+3\s+15$/m);
    expect(result.stdout).not.toContain('sk-local-secret');
  });
});

describe('run on an OpenAI-compatible provider', () => {
  it('answers through the local server without an Anthropic key, and sessions shows the model', async () => {
    local.enqueue(say('Hello from the local model.', { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 }));
    const result = await runCli(['run', '-m', 'local/qwen3-coder', 'say hello'], { cwd: p.project, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello from the local model.\n');
    expect(local.requests[0]!.body.model).toBe('qwen3-coder');
    expect(local.requests[0]!.headers.authorization).toBe('Bearer sk-local-secret');
    const sessions = JSON.parse((await runCli(['sessions', '--json'], { cwd: p.project, env })).stdout) as Array<{ model: string; total_cost: number }>;
    expect(sessions[0]).toMatchObject({ model: 'local/qwen3-coder' });
    // The configured price: $0.1 + $0.2 for a million tokens each way.
    expect(sessions[0]!.total_cost).toBeCloseTo(0.3, 6);
    const table = (await runCli(['sessions'], { cwd: p.project, env })).stdout;
    expect(table).toMatch(/\slocal\/qwen3-coder\s/);
  });

  it('rejects an unknown provider with its close match and exit 2, sending nothing', async () => {
    const result = await runCli(['run', '-m', 'lcal/qwen3-coder', 'hi'], { cwd: p.project, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown provider "lcal"');
    expect(result.stderr).toContain('Did you mean "local"?');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(local.requests).toHaveLength(0);
  });

  it('says which variable to set when the openai preset has no key', async () => {
    const result = await runCli(['run', '-m', 'openai/gpt-4.1', 'hi'], { cwd: p.project, env });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Error: No API key for provider "openai": set OPENAI_API_KEY (or provider.openai.apiKey in the config).');
  });

  it('names the config key of a provider entry without a type', async () => {
    writeFileSync(join(p.dir, 'config', 'config.json'), JSON.stringify({ provider: { lmstudio: { baseURL: 'http://127.0.0.1:1234/v1' } } }));
    const result = await runCli(['models'], { cwd: p.project, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('provider.lmstudio.type');
  });
});
