// `/skills` in the whole app: a panel listing each skill with its description, where it was
// found, and why other SKILL.md files were not loaded; nothing is sent to the model.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../../support/app.js';
import type { SkillCatalogue } from '../../../src/core/skills/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { closeApp } from './teardown.js';
import { KEY, press, waitForFrame } from '../keys/harness.js';

let h: Harness | undefined;
let app: RenderedApp | undefined;
afterEach(async () => {
  await closeApp(app, h);
  app = undefined;
  h = undefined;
});

const CATALOGUE: SkillCatalogue = {
  skills: new Map([
    ['theme-factory', { name: 'theme-factory', description: 'Toolkit for styling artifacts with a theme', body: 'b', dir: '/home/u/.claude/skills/theme-factory', file: '/home/u/.claude/skills/theme-factory/SKILL.md', origin: 'user' }],
    ['deploy', { name: 'deploy', description: 'Ship the app to staging', body: 'b', dir: '/p/.claude/skills/deploy', file: '/p/.claude/skills/deploy/SKILL.md', origin: 'project' }],
  ]),
  warnings: [{ source: '/p/.claude/skills/broken/SKILL.md', message: 'skill skipped: description is required.' }],
};

describe('/skills', () => {
  it('lists the skills, where they are, and the ones that did not load', async () => {
    h = await startHarness({ engine: { interactive: true, skills: CATALOGUE } });
    app = await openApp(h.engine);
    await press(app.stdin, '/skills');
    await press(app.stdin, KEY.escape);
    await press(app.stdin, KEY.enter);
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('Not loaded'));
    expect(frame).toContain('Skills');
    expect(frame.indexOf('deploy')).toBeLessThan(frame.indexOf('theme-factory'));
    expect(frame).toContain('Ship the app to staging');
    expect(frame).toContain('project · /p/.claude/skills/deploy');
    expect(frame).toContain('/p/.claude/skills/broken/SKILL.md: skill skipped: description is required.');
    expect(h.server.requests).toHaveLength(0);
    await press(app.stdin, KEY.escape);
    await waitForFrame(app.lastFrame, (f) => f.includes('Ask anything') && !f.includes('Not loaded'));
  });
});
