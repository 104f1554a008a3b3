// The built-in agents parsed at build time (scripts/builtin-agents.mjs → src/core/agents/builtin-cache.ts):
// the build covers every built-in file and gives exactly what parsing it at start-up gives,
// and a start uses an entry only for the very text it was parsed from.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BuiltinAgentEntry } from '../../src/core/agents/builtin-cache.js';
import { parseBuiltinAgents } from '../../scripts/builtin-agents.mjs';
import { REPO_ROOT } from '../support/repo-root.js';

const BUILTIN_DIR = join(REPO_ROOT, 'agents');
const dirs: string[] = [];
const global = globalThis as { __OC_BUILTIN_AGENTS__?: readonly BuiltinAgentEntry[] };

afterEach(() => {
  delete global.__OC_BUILTIN_AGENTS__;
  vi.resetModules();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The build's entries as the bundle carries them (a JSON `define`). */
async function buildEntries(): Promise<BuiltinAgentEntry[]> {
  const options: BuildOptions = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', define: {} };
  return JSON.parse(JSON.stringify(await parseBuiltinAgents(REPO_ROOT, options))) as BuiltinAgentEntry[];
}

/** loadAgents from a fresh module graph, so the cache module reads the global as set now. */
async function loadBuiltins(builtinDir: string): Promise<Map<string, unknown>> {
  vi.resetModules();
  const { loadAgents } = await import('../../src/core/agents/index.js');
  const empty = mkdtempSync(join(tmpdir(), 'oci-builtin-'));
  dirs.push(empty);
  const { agents, warnings } = loadAgents({ builtinDir, configDir: join(empty, 'config'), cwd: empty });
  expect(warnings).toEqual([]);
  return agents;
}

describe('built-in agents parsed at build time', () => {
  it('cover every built-in file and equal what parsing the files gives', async () => {
    const entries = await buildEntries();
    expect(entries.map((e) => e.file).sort()).toEqual(readdirSync(BUILTIN_DIR).filter((f) => f.endsWith('.md')).sort());
    const parsed = await loadBuiltins(BUILTIN_DIR);
    global.__OC_BUILTIN_AGENTS__ = entries;
    const cached = await loadBuiltins(BUILTIN_DIR);
    expect(cached).toEqual(parsed);
    expect(cached.size).toBe(entries.length);
  });

  it('are used for an unchanged file and ignored for an edited one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-builtin-agents-'));
    dirs.push(dir);
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(BUILTIN_DIR)) copyFileSync(join(BUILTIN_DIR, f), join(dir, f));
    const entries = await buildEntries();
    // Marked, so that the test can tell an entry's agent from a parsed one.
    global.__OC_BUILTIN_AGENTS__ = entries.map((e) => ({ ...e, agent: { ...e.agent, description: `cached ${e.file}` } }));
    const edited = readFileSync(join(dir, 'plan.md'), 'utf8').replace(/^description: .*$/m, 'description: Edited after the build.');
    writeFileSync(join(dir, 'plan.md'), edited);

    const agents = await loadBuiltins(dir);
    expect(agents.get('build')).toMatchObject({ description: 'cached build.md', source: join(dir, 'build.md') });
    expect(agents.get('plan')).toMatchObject({ description: 'Edited after the build.', source: join(dir, 'plan.md') });
  });
});
