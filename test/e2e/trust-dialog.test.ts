// End-to-end: the built binary in a real terminal (tmux) opens an untrusted project whose
// files ask for more than they may have. The trust dialog comes first; "t" records trust
// and starts with the project's files in full, "n" starts without them and says so.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { REPO_ROOT } from '../support/repo-root.js';
import { hasTmux, tmuxServer } from '../support/tmux.js';

const server = tmuxServer(`oci-trust-${process.pid}`);
let home: string;

function start(name: string, beforeStart?: (project: string, env: NodeJS.ProcessEnv) => void): { project: string; data: string; screen(): string; keys(...k: string[]): void; waitFor(p: (s: string) => boolean, what: string): Promise<string> } {
  const project = join(home, name, 'project');
  const data = join(home, name, 'data');
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
  // The fake endpoint is never reached: nothing is sent before the user types a prompt.
  const env = [`HOME=${home}`, `OPENCODE_INK_DATA_DIR=${data}`, `OPENCODE_INK_CONFIG_DIR=${join(home, name, 'config')}`, 'ANTHROPIC_API_KEY=x', 'ANTHROPIC_BASE_URL=http://127.0.0.1:9', 'TERM=xterm-256color'];
  beforeStart?.(project, { HOME: home, OPENCODE_INK_DATA_DIR: data, OPENCODE_INK_CONFIG_DIR: join(home, name, 'config') });
  server.run('new-session', '-d', '-s', name, '-x', '100', '-y', '30', '-c', project, `env ${env.join(' ')} node ${join(REPO_ROOT, 'bin/opencode-ink.js')}; sleep 30`);
  const screen = () => server.run('capture-pane', '-p', '-t', name);
  return {
    project: realpathSync(project),
    data,
    screen,
    keys: (...k) => void server.run('send-keys', '-t', name, ...k),
    async waitFor(predicate, what) {
      const deadline = Date.now() + 15_000;
      let last = '';
      while (Date.now() < deadline) {
        last = screen();
        if (predicate(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`Timed out waiting for ${what}. Screen:\n${last}`);
    },
  };
}

describe.runIf(hasTmux || process.env.CI)('the trust dialog in a terminal', () => {
  beforeAll(() => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'oci-trust-e2e-')));
  });
  afterAll(async () => {
    server.kill();
    // The killed program may still be closing its store in there (a file appears while the
    // folder is being emptied): try again until it has finished, with a deadline.
    await waitFor(
      () => {
        try {
          rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
          return true;
        } catch {
          return false;
        }
      },
      `${home} to be removed`,
      { timeoutMs: 15_000, intervalMs: 200 },
    );
  });

  it('asks first; "t" records trust and starts the app with the project in full', async () => {
    const t = start('trust-yes');
    const dialog = await t.waitFor((s) => s.includes('Trust this project?'), 'the trust dialog');
    expect(dialog).toContain('allow rules (.opencoderc.json)');
    t.keys('t');
    const app = await t.waitFor((s) => !s.includes('Trust this project?') && s.includes('build'), 'the app');
    expect(app).not.toContain('Project not trusted');
    const trusted = JSON.parse(readFileSync(join(t.data, 'trust.json'), 'utf8')) as { projects: Record<string, unknown> };
    expect(Object.keys(trusted.projects)).toEqual([t.project]);
    t.keys('C-c');
    t.keys('C-c');
  }, 40_000);

  it('"n" starts without the project\'s widening files, says so, and records nothing', async () => {
    const t = start('trust-no');
    await t.waitFor((s) => s.includes('Trust this project?'), 'the trust dialog');
    t.keys('n');
    const app = await t.waitFor((s) => !s.includes('Trust this project?') && s.includes('build'), 'the app');
    expect(app.replace(/\s+/g, ' ')).toContain('Project not trusted: ignored allow rules (.opencoderc.json).');
    expect(existsSync(join(t.data, 'trust.json'))).toBe(false);
    t.keys('C-c');
    t.keys('C-c');
  }, 40_000);

  it('asks again when a trusted project\'s control files changed, naming them; "t" pins them and starts in full', async () => {
    const t = start('trust-changed', (project, env) => {
      writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { edit: 'ask' } }));
      execFileSync(process.execPath, [join(REPO_ROOT, 'bin/opencode-ink.js'), 'trust'], { cwd: project, env: { PATH: process.env.PATH, ...env } });
      writeFileSync(join(project, '.opencoderc.json'), JSON.stringify({ permission: { bash: 'allow' } }));
    });
    const dialog = await t.waitFor((s) => s.includes('Trust this project again?'), 'the trust dialog');
    expect(dialog).toContain('.opencoderc.json (changed)');
    t.keys('t');
    const app = await t.waitFor((s) => !s.includes('Trust this project again?') && s.includes('build'), 'the app');
    expect(app).not.toContain('Project files changed');
    const pins = JSON.parse(readFileSync(join(t.data, 'trust.json'), 'utf8')) as { projects: Record<string, { control_files: Record<string, Record<string, string>> }> };
    const now = createHash('sha256').update(readFileSync(join(t.project, '.opencoderc.json'))).digest('hex');
    expect(pins.projects[t.project]!.control_files['.']!['.opencoderc.json']).toBe(`sha256:${now}`);
    t.keys('C-c');
    t.keys('C-c');
  }, 40_000);
});
