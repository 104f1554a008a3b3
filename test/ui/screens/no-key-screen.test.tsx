// The first-run screen without credentials says what to set and offers the demo.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { credentialProblem, startingProvider } from '../../../src/core/provider/credentials.js';
import { DEFAULT_MODEL } from '../../../src/core/provider/models.js';
import { NoKeyScreen } from '../../../src/ui/screens/NoKeyScreen.js';
import { KEY, press, waitFor } from '../keys/harness.js';

let app: ReturnType<typeof render> | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

describe('NoKeyScreen', () => {
  it('names every way to authenticate and fits 80 columns', () => {
    app = render(<NoKeyScreen onChoice={() => {}} />);
    const frame = app.lastFrame() ?? '';
    expect(frame).toContain('export ANTHROPIC_API_KEY=');
    expect(frame).toContain('ANTHROPIC_AUTH_TOKEN');
    expect(frame).toContain('ANTHROPIC_BASE_URL');
    expect(frame).toContain('"apiKey"');
    expect(frame).toMatch(/offline scripted demo/);
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it.each([80, 60, 44])('lays the text out for %i columns: no line longer, no sentence broken by hand', (columns) => {
    // The screen lays out for the terminal's width, less one spare column (see NoKeyScreen).
    app = render(<NoKeyScreen onChoice={() => {}} width={columns} />);
    const frame = app.lastFrame() ?? '';
    const lines = frame.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
    // Read back as paragraphs (box borders and padding removed), every sentence is whole.
    const inner = lines.map((l) => l.replace(/^│ ?/, '').replace(/ ?│$/, '').trim());
    const prose = inner.join(' ').replace(/\s+/g, ' ');
    expect(prose).toContain('Or ANTHROPIC_AUTH_TOKEN for a bearer token.');
    expect(prose).toContain('With ANTHROPIC_BASE_URL for a compatible endpoint, a key is still needed: any placeholder if the endpoint checks none.');
    // Wrapped between words at the box's width: a line ends early only where the next word would not fit.
    for (let i = 0; i + 1 < inner.length; i++) {
      const [line, next] = [inner[i]!, inner[i + 1]!];
      if (!line || !next || /[.:!?]$/.test(line) || line.startsWith('export') || next.startsWith('"') || line.startsWith('"')) continue;
      const nextWord = next.split(' ')[0]!;
      expect(line.length + 1 + nextWord.length, `"${line}" could have taken "${nextWord}"`).toBeGreaterThan(Math.min(columns, 78) - 6);
    }
  });

  it('names the provider -m starts on and its key, not Anthropic', () => {
    // `-m openai/x` without OPENAI_API_KEY, as the TUI's launch checks it.
    const config = { provider: {}, model: DEFAULT_MODEL };
    const problem = credentialProblem(config, {}, 'openai/gpt-x');
    expect(problem).toBeDefined();
    app = render(<NoKeyScreen provider={startingProvider(config, 'openai/gpt-x')} problem={problem!} onChoice={() => {}} />);
    const frame = app.lastFrame() ?? '';
    expect(frame).toContain('needs an API key for provider "openai"');
    expect(frame).toContain('OPENAI_API_KEY');
    expect(frame).toMatch(/"provider": \{ "openai": \{ "apiKey"/);
    expect(frame).not.toMatch(/anthropic/i);
    expect(frame).toMatch(/offline scripted demo/);
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it.each([
    ['d', 'demo'],
    [KEY.enter, 'demo'],
    ['q', 'quit'],
  ])('key %j chooses %s', async (key, choice) => {
    const onChoice = vi.fn();
    app = render(<NoKeyScreen onChoice={onChoice} />);
    await press(app.stdin, key);
    await waitFor(() => onChoice.mock.calls.length > 0);
    expect(onChoice).toHaveBeenCalledWith(choice);
  });
});
