// `/model` checks the name against the models this program knows and completes it.
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type RenderedApp } from '../../support/app.js';
import { modelProblem } from '../../../src/core/provider/models.js';
import { menuContext, menuItems } from '../../../src/ui/components/input/completion.js';
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

describe('modelProblem', () => {
  it('accepts aliases, known Anthropic ids, dated snapshots and other providers', () => {
    for (const ok of ['sonnet', 'Opus', 'haiku', 'anthropic/claude-sonnet-4-6', 'claude-opus-4-5', 'claude-sonnet-4-5-20250929', 'claude-3-7-sonnet-latest', 'claude-sonnet-4-20250514', 'ollama/qwen3:8b', 'openai/gpt-4.1']) {
      expect(modelProblem(ok), ok).toBeUndefined();
    }
  });

  it('names an unknown or empty model and what would work', () => {
    expect(modelProblem('foo-bar')).toMatch(/Unknown model "foo-bar".*sonnet, opus, haiku/);
    expect(modelProblem('anthropic/claude-sonnet-9')).toMatch(/Unknown model/);
    expect(modelProblem('claude-sonnet-4-6x')).toMatch(/Unknown model/);
    expect(modelProblem('  ')).toMatch(/Name a model/);
  });
});

describe('/model completion', () => {
  it('offers models after "/model "', () => {
    const text = '/model hai';
    const ctx = menuContext({ text, cursor: text.length });
    expect(ctx?.kind).toBe('model');
    const items = menuItems(ctx!, { models: [{ name: 'sonnet' }, { name: 'haiku' }, { name: 'anthropic/claude-haiku-4-5' }] });
    expect(items.map((i) => i.label)).toEqual(['haiku', 'anthropic/claude-haiku-4-5']);
  });
});

describe('/model in the app', () => {
  it('refuses an unknown model with a notice and keeps the current one', async () => {
    h = await startHarness({ engine: { interactive: true } });
    app = await openApp(h.engine);
    const rootId = app.rootId;
    const before = h.engine.history(rootId)?.session.model;
    await press(app.stdin, '/model foo-bar', KEY.enter);
    const f = await waitForFrame(app.lastFrame, (fr) => fr.includes('Unknown model "foo-bar"'));
    expect(f).toContain('claude-sonnet-4-6');
    expect(h.engine.history(rootId)?.session.model).toBe(before);
  });

  it('completes a model name with Tab and switches to it with Enter', async () => {
    h = await startHarness({ engine: { interactive: true } });
    app = await openApp(h.engine);
    const rootId = app.rootId;
    await press(app.stdin, '/model hai');
    await waitForFrame(app.lastFrame, (f) => f.includes('anthropic/claude-haiku-4-5'));
    await press(app.stdin, KEY.tab, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Model set to anthropic/claude-haiku-4-5.'));
    expect(h.engine.history(rootId)?.session.model).toBe('anthropic/claude-haiku-4-5');
  });

  it('completes the models the config lists under another provider', async () => {
    h = await startHarness({
      engine: { interactive: true },
      config: { provider: { local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', models: { 'qwen3-coder': {} } } } },
    });
    app = await openApp(h.engine);
    const rootId = app.rootId;
    await press(app.stdin, '/model qwen');
    await waitForFrame(app.lastFrame, (f) => f.includes('local/qwen3-coder'));
    await press(app.stdin, KEY.tab, KEY.enter);
    await waitForFrame(app.lastFrame, (f) => f.includes('Model set to local/qwen3-coder.'));
    expect(h.engine.history(rootId)?.session.model).toBe('local/qwen3-coder');
  });
});
