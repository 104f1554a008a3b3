// The one-time trust dialog: names the project and what was ignored; only "t" trusts.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrustScreen } from '../../../src/ui/screens/TrustScreen.js';
import { KEY, press, tick, waitFor } from '../keys/harness.js';

let app: ReturnType<typeof render> | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

const IGNORED = ['allow rules (.opencoderc.json)', 'provider.anthropic.baseURL (.opencoderc.json)', 'agent build permissions (.opencode/agents/build.md)'];

describe('TrustScreen', () => {
  it('names the project and each ignored item, and fits 80 columns', () => {
    app = render(<TrustScreen root="/home/me/repo" ignored={IGNORED} onChoice={() => {}} />);
    const frame = app.lastFrame() ?? '';
    expect(frame).toContain('Trust this project?');
    expect(frame).toContain('/home/me/repo');
    for (const item of IGNORED) expect(frame).toContain(item);
    expect(frame).toContain('opencode-ink trust --revoke');
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('for a trusted project whose control files changed, asks again and names each changed file', () => {
    const changed = ['.claude/settings.json (changed)', 'CLAUDE.md (removed)'];
    app = render(<TrustScreen root="/home/me/repo" ignored={['hooks.UserPromptSubmit (.claude/settings.json)']} changed={changed} onChoice={() => {}} />);
    const frame = app.lastFrame() ?? '';
    expect(frame).toContain('Trust this project again?');
    for (const item of changed) expect(frame).toContain(item);
    expect(frame).toContain('hooks.UserPromptSubmit (.claude/settings.json)');
    expect(frame).toContain('pins the files as they are now');
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('sums up a long list in one line', () => {
    const many = Array.from({ length: 12 }, (_, i) => `item ${i} (.opencoderc.json)`);
    app = render(<TrustScreen root="/r" ignored={many} onChoice={() => {}} />);
    const frame = app.lastFrame() ?? '';
    expect(frame).toContain('item 7 (');
    expect(frame).not.toContain('item 8 (');
    expect(frame).toContain('… and 4 more');
  });

  it.each([
    ['t', 'trust'],
    ['n', 'not-now'],
    [KEY.enter, 'not-now'],
    [KEY.escape, 'not-now'],
    [KEY.ctrlC, 'quit'],
  ])('key %j chooses %s', async (key, choice) => {
    const onChoice = vi.fn();
    app = render(<TrustScreen root="/r" ignored={IGNORED} onChoice={onChoice} />);
    await press(app.stdin, key);
    await waitFor(() => onChoice.mock.calls.length > 0);
    expect(onChoice).toHaveBeenCalledTimes(1);
    expect(onChoice).toHaveBeenCalledWith(choice);
  });

  it('ignores other keys: a stray keypress never trusts', async () => {
    const onChoice = vi.fn();
    app = render(<TrustScreen root="/r" ignored={IGNORED} onChoice={onChoice} />);
    for (const key of ['y', 'x', ' ', KEY.up]) await press(app.stdin, key);
    await tick(20);
    expect(onChoice).not.toHaveBeenCalled();
  });
});
