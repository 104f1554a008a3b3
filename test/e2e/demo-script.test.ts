// The demo's script on its own (the terminal run is tui.test.ts): prompts off the script get
// a labelled scripted reply, and a denial with a note counts as a denial.
import { describe, expect, it } from 'vitest';
import { DEMO_PROMPT, FOLLOW_UP_LABEL, demoReply } from '../../src/demo/script.js';

const assistant = { role: 'assistant', content: [{ type: 'text', text: '…' }] };
const texts = (reply: ReturnType<typeof demoReply>) => reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

describe('the demo script', () => {
  it('answers a prompt off the script with a labelled reply naming it', () => {
    const first = demoReply({ messages: [{ role: 'user', content: 'What is this?' }] });
    expect(texts(first)).toContain(`${FOLLOW_UP_LABEL} You asked: “What is this?”`);
    // After the scripted part, in the same conversation.
    const later = demoReply({
      messages: [
        { role: 'user', content: DEMO_PROMPT },
        assistant,
        { role: 'user', content: [{ type: 'tool_result', content: 'x' }] },
        assistant,
        { role: 'user', content: [{ type: 'tool_result', content: 'y' }] },
        assistant,
        { role: 'user', content: [{ type: 'text', text: 'Can you also add a test?' }] },
      ],
    });
    expect(texts(later)).toContain('You asked: “Can you also add a test?”');
  });

  it('treats an edit denied with a note as not applied', () => {
    const afterEdit = (result: { content: string; is_error?: boolean }) =>
      texts(
        demoReply({
          messages: [
            { role: 'user', content: DEMO_PROMPT },
            assistant,
            { role: 'user', content: [{ type: 'tool_result', content: 'done' }] },
            assistant,
            // The parent reads the file, then edits it, in one message.
            { role: 'user', content: [{ type: 'tool_result', content: '1\timport …' }, { type: 'tool_result', ...result }] },
          ],
        }),
      );
    expect(afterEdit({ content: 'Edited src/server.ts.' })).toContain('## Done');
    expect(afterEdit({ content: 'please leave v1 alone', is_error: true })).toContain('left `src/server.ts` unchanged');
  });
});
