// The same digit picks the same-numbered option in both dialogs, and a compact approval
// dialog keeps who asks, the tool and the command on a short screen.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup } from 'ink-testing-library';
import { Box } from 'ink';
import { ApprovalDialog, AskUserDialog, type ApprovalReply } from '../../../src/ui/components/dialogs/index.js';
import { approvalChromeRows } from '../../../src/ui/components/dialogs/ApprovalDialog.js';
import { KEY, press, tick, waitFor, waitForFrame } from '../keys/harness.js';

afterEach(() => cleanup());

function ask(options: string[]) {
  const onAnswer = vi.fn<(text: string) => void>();
  const r = render(<AskUserDialog asker="build › explore" question="Which?" options={options} position={1} total={1} onAnswer={onAnswer} onDecline={() => {}} />);
  return { ...r, onAnswer };
}

function approve(extra: { compact?: boolean; always?: string[] } = {}) {
  const onReply = vi.fn<(reply: ApprovalReply, note?: string) => void>();
  const r = render(<ApprovalDialog asker="build › general (Check the tests)" tool="bash" subject="npm run build && npm test" position={1} total={1} onReply={onReply} {...extra} />);
  return { ...r, onReply };
}

describe('digits in both dialogs', () => {
  it('2 picks the second option in the AskUser dialog, as in the approval dialog', async () => {
    const a = ask(['v1', 'v2', 'both']);
    await tick();
    await press(a.stdin, '2');
    await waitFor(() => a.onAnswer.mock.calls.length > 0);
    expect(a.onAnswer).toHaveBeenCalledWith('v2');
    cleanup();

    const p = approve();
    await tick();
    await press(p.stdin, '2');
    await waitFor(() => p.onReply.mock.calls.length > 0);
    expect(p.onReply).toHaveBeenCalledWith('always');
  });

  it('names the digits in both footers', async () => {
    const a = ask(['v1', 'v2', 'both']);
    expect(await waitForFrame(a.lastFrame, (f) => f.includes('1-3 pick'))).toContain('1-3 pick');
    cleanup();
    const p = approve();
    expect(await waitForFrame(p.lastFrame, (f) => f.includes('1-4 pick'))).toContain('1-4 pick');
  });

  it('a digit beyond the options, or typed after text, is part of a free answer', async () => {
    const a = ask(['v1', 'v2']);
    await tick();
    await press(a.stdin, '7', 'x', '1', KEY.enter);
    await waitFor(() => a.onAnswer.mock.calls.length > 0);
    expect(a.onAnswer).toHaveBeenCalledWith('7x1');
  });

  it('a pasted digit is text, not a pick', async () => {
    const a = ask(['v1', 'v2']);
    await tick();
    await press(a.stdin, '\u001B[200~2\u001B[201~', KEY.enter);
    await waitFor(() => a.onAnswer.mock.calls.length > 0);
    expect(a.onAnswer).toHaveBeenCalledWith('2');
  });
});

describe('compact approval dialog', () => {
  it('shows the asker, the tool, the command and all choices in its counted rows', async () => {
    const p = approve({ compact: true });
    const f = await waitForFrame(p.lastFrame, (fr) => fr.includes('npm run build'));
    expect(f).toContain('Permission from build › general (Check the tests)');
    expect(f).toContain('wants to use bash');
    expect(f).toMatch(/❯1 Allow +2 Always +3 Deny +4 Note/);
    // Chrome rows plus one subject row.
    expect(f.split('\n')).toHaveLength(approvalChromeRows(0, 100, true) + 1);
    expect(approvalChromeRows(0, 100, true)).toBeLessThan(approvalChromeRows(0, 100));
    await press(p.stdin, KEY.down, KEY.down);
    await waitForFrame(p.lastFrame, (fr) => fr.includes('❯3 Deny'));
    await press(p.stdin, '4', 'too risky', KEY.enter);
    await waitFor(() => p.onReply.mock.calls.length > 0);
    expect(p.onReply).toHaveBeenCalledWith('reject', 'too risky');
  });

  it('names the patterns "Always" would remember at 50 columns, in its counted rows', async () => {
    const p = render(
      <Box width={50}>
        <ApprovalDialog asker="build › general (Check the tests)" tool="bash" subject="npm run build && npm test" always={['npm run build *', 'npm test *']} position={1} total={1} onReply={() => {}} compact />
      </Box>,
    );
    const f = await waitForFrame(p.lastFrame, (fr) => fr.includes('npm run build &&'));
    expect(f).toMatch(/❯1 Allow +2 Always +3 Deny +4 Note *│\n│ Always: "npm run build \*", "npm test \*"/);
    expect(f.split('\n')).toHaveLength(approvalChromeRows(0, 50, true, 4, undefined, ['npm run build *', 'npm test *']) + 1);
    // A command no pattern can cover says so rather than promising to remember it.
    cleanup();
    const q = render(<ApprovalDialog asker="build" tool="bash" subject="eval $X" always={[]} position={1} total={1} onReply={() => {}} compact />);
    expect(await waitForFrame(q.lastFrame, (fr) => fr.includes('eval'))).toContain('Always: no pattern covers this; it asks again');
  });

  it('counts a footer that wraps on a narrow screen', () => {
    expect(approvalChromeRows(0, 40)).toBe(approvalChromeRows(0, 100) + 1);
  });
});
