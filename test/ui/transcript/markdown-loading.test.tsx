// marked loads after the first frame (src/ui/render/markdown.tsx): until then markdown is
// drawn as the text it is, and a Markdown element drawn before is formatted once it loads.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { Markdown, lexMarkdown, loadMarkdown } from '../../../src/ui/render/markdown.js';
import { waitFor } from '../../support/wait.js';

describe('markdown before and after marked loads', () => {
  it('shows the plain text first, then draws it again formatted once marked has loaded', async () => {
    const source = '# Title\n\nSome **bold** words.';
    expect(lexMarkdown(source)).toEqual([{ type: 'text', raw: source, text: source }]);
    const view = render(<Markdown text={source} width={40} />);
    expect(view.lastFrame()).toContain('# Title');
    expect(view.lastFrame()).toContain('**bold**');

    // The element loads marked itself and draws again: no new props needed.
    await loadMarkdown();
    const formatted = await waitFor(() => (view.lastFrame()?.includes('**') ? undefined : view.lastFrame()), 'the formatted frame');
    expect(formatted).not.toContain('#');
    expect(formatted).toContain('Some bold words.');
    expect(lexMarkdown(source).map((t) => t.type)).toEqual(['heading', 'space', 'paragraph']);
    view.unmount();
  });
});
