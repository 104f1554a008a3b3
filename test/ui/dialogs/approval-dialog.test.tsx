import { afterEach, describe, expect, it, vi } from 'vitest';
import { Box, Text } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { ApprovalDialog, type ApprovalDialogProps } from '../../../src/ui/components/dialogs/index.js';
import { approvalChromeRows, capSubject } from '../../../src/ui/components/dialogs/ApprovalDialog.js';
import { KEY, press, tick, waitFor, waitForFrame } from '../keys/harness.js';

afterEach(() => cleanup());

type Reply = ApprovalDialogProps['onReply'];

async function setup(extra: Partial<ApprovalDialogProps> = {}) {
  const onReply = vi.fn<Reply>();
  const r = render(
    <ApprovalDialog asker="build › general (Run tests)" tool="bash" subject="npm test -- --run" position={1} total={1} onReply={onReply} {...extra} />,
  );
  await tick();
  return { ...r, onReply, frame: () => r.lastFrame() ?? '' };
}

describe('ApprovalDialog', () => {
  it('shows the asker, the tool, the command and the four choices', async () => {
    const t = await setup({ position: 2, total: 3 });
    const f = t.frame();
    expect(f).toContain('build › general (Run tests)');
    expect(f).toContain('bash');
    expect(f).toContain('$ npm test -- --run');
    for (const c of ['Allow once', 'Always allow (this session tree)', 'Deny', 'Deny with a note']) expect(f).toContain(c);
    expect(f).toContain('2 of 3');
  });

  it('at 50 columns cuts the asker with an ellipsis and keeps its place in the queue apart', async () => {
    const onReply = vi.fn<Reply>();
    const r = render(
      <Box width={50}>
        <ApprovalDialog asker="build › general (Slow audit of the whole router)" tool="bash" subject="ls" position={1} total={2} onReply={onReply} />
      </Box>,
    );
    await tick();
    const title = (r.lastFrame() ?? '').split('\n')[1]!;
    expect(title).toMatch(/Permission from build › general \(Sl.*… · 1 of 2 │$/);
  });

  it('names the file a write or an edit would change', async () => {
    const t = await setup({ tool: 'write', subject: 'Index: notes.txt\n===\n--- notes.txt\n+++ notes.txt\n@@ -0,0 +1 @@\n+hi', file: 'notes.txt' });
    expect(t.frame()).toContain('wants to write notes.txt');
    expect(t.frame()).not.toContain('wants to use');
  });

  it('names the exact patterns "Always allow" remembers', async () => {
    const t = await setup({ subject: 'git status; npm run build', always: ['git status*', 'npm run*'] });
    expect(t.frame().replace(/\s+/g, ' ')).toContain('2. Always allow "git status*", "npm run*" for this session tree');
    await press(t.stdin, '2');
    expect(t.onReply).toHaveBeenLastCalledWith('always');
  });

  it('says when nothing can be remembered', async () => {
    const t = await setup({ subject: '$CMD x', always: [] });
    expect(t.frame()).toContain('no pattern can cover it');
  });

  it('Enter on the default choice allows once', async () => {
    const t = await setup();
    await press(t.stdin, KEY.enter);
    expect(t.onReply).toHaveBeenCalledWith('once');
  });

  it('Down + Enter picks always, then deny', async () => {
    const t = await setup();
    await press(t.stdin, KEY.down, KEY.enter);
    expect(t.onReply).toHaveBeenLastCalledWith('always');
    await press(t.stdin, KEY.down, KEY.enter);
    expect(t.onReply).toHaveBeenLastCalledWith('reject');
  });

  it('digits are shortcuts', async () => {
    const t = await setup();
    await press(t.stdin, '2');
    expect(t.onReply).toHaveBeenLastCalledWith('always');
    await press(t.stdin, '3');
    expect(t.onReply).toHaveBeenLastCalledWith('reject');
    await press(t.stdin, '1');
    expect(t.onReply).toHaveBeenLastCalledWith('once');
  });

  it('deny with a note opens a text field and sends the note with reject', async () => {
    const t = await setup();
    await press(t.stdin, KEY.up);
    await press(t.stdin, KEY.enter);
    await waitForFrame(t.lastFrame, (f) => f.includes('Note:'));
    expect(t.onReply).not.toHaveBeenCalled();
    await press(t.stdin, 'use pnpmm', KEY.backspace, KEY.enter);
    expect(t.onReply).toHaveBeenCalledWith('reject', 'use pnpm');
  });

  it('digits typed into the note are text, and Esc returns to the choices', async () => {
    const t = await setup();
    await press(t.stdin, '4', '12');
    await waitForFrame(t.lastFrame, (f) => f.includes('Note: 12'));
    expect(t.onReply).not.toHaveBeenCalled();
    await press(t.stdin, KEY.escape);
    await waitForFrame(t.lastFrame, (f) => !f.includes('Note:'));
    expect(t.onReply).not.toHaveBeenCalled();
    await press(t.stdin, '1');
    expect(t.onReply).toHaveBeenCalledWith('once');
  });

  it('Esc denies', async () => {
    const t = await setup();
    await press(t.stdin, KEY.escape);
    await waitFor(() => t.onReply.mock.calls.length === 1);
    expect(t.onReply).toHaveBeenCalledWith('reject');
  });

  it('caps a long subject with an "N more lines" notice', async () => {
    const subject = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    const t = await setup({ tool: 'write', subject, maxSubjectLines: 10 });
    const f = t.frame();
    expect(f).toContain('line 9');
    expect(f).not.toMatch(/line 10\b/);
    expect(f).not.toContain('line 11');
    expect(f).toContain('31 more lines');
  });

  it('passes the subject and line budget to an injected renderer', async () => {
    const renderSubject = vi.fn((subject: string, max: number) => <Text>DIFF[{subject}]{max}</Text>);
    const t = await setup({ tool: 'edit', subject: '--- a\n+++ b', renderSubject, maxSubjectLines: 7 });
    expect(t.frame()).toContain('DIFF[--- a');
    expect(renderSubject).toHaveBeenCalledWith('--- a\n+++ b', 7);
  });
});

describe('ApprovalDialog with other dialogs queued and a fixed height', () => {
  it('names the questions waiting behind it', async () => {
    const t = await setup({ waiting: ['question from build › explore (Find API routes)'] });
    expect(t.frame()).toContain('Also waiting: question from build › explore (Find API routes)');
    const none = await setup();
    expect(none.frame()).not.toContain('Also waiting');
  });

  it('does not grow while a note is typed, however long', async () => {
    const t = await setup({ maxSubjectLines: 3 });
    const rows = t.frame().split('\n').length;
    await press(t.stdin, KEY.up, KEY.enter);
    await waitForFrame(t.lastFrame, (f) => f.includes('Note:'));
    await press(t.stdin, 'a very long note '.repeat(30));
    await waitForFrame(t.lastFrame, (f) => f.includes('very long note'));
    expect(t.frame().split('\n').length).toBeLessThanOrEqual(rows);
    expect(t.frame()).toContain('4. Deny with a note');
    expect(t.frame()).not.toContain('Allow once');
    await press(t.stdin, KEY.escape);
    await waitForFrame(t.lastFrame, (f) => f.includes('Allow once'));
  });
});

describe('a request asked whatever the rules say', () => {
  it('says why under the tool, in rows the layout counts, compact or not', async () => {
    const reason = 'writes .git/config, which controls git: always asked';
    const t = await setup({ tool: 'write', subject: 'diff', reason });
    expect(t.frame()).toContain(`⚠ ${reason}`);
    expect(t.frame().indexOf('wants to use write')).toBeLessThan(t.frame().indexOf(reason));
    expect(approvalChromeRows(0, 100, false, 4, reason)).toBe(approvalChromeRows(0, 100) + 1);
    expect(approvalChromeRows(0, 100, true, 4, reason)).toBe(approvalChromeRows(0, 100, true) + 1);
    cleanup();
    const compact = await setup({ tool: 'write', subject: 'diff', reason, compact: true });
    expect(compact.frame()).toContain('⚠ writes .git/config');
    expect(compact.frame().split('\n')).toHaveLength(approvalChromeRows(0, 100, true, 4, reason) + 1);
  });
});

describe('capSubject', () => {
  it('counts wrapped rows and always shows at least the first line', () => {
    expect(capSubject('a\nb\nc', 3, 80)).toEqual({ shown: ['a', 'b', 'c'], hidden: 0 });
    expect(capSubject('a\nb\nc\nd', 3, 80)).toEqual({ shown: ['a', 'b'], hidden: 2 });
    const long = 'x'.repeat(500);
    expect(capSubject(`${long}\nnext`, 4, 50)).toEqual({ shown: [long], hidden: 1 });
  });
});
