// `send_message` (DESIGN §24): a session of a team writes to a teammate by name, to `lead`, or
// to everyone (`*`); `shutdown: true` (the lead only) asks a teammate to end after its current
// turn. Built per session like `task`, delivering through the team's scheduler
// (team/teammates.ts): the recipient reads it at its next turn boundary, an idle one wakes up.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { defineTool, type Tool, type ToolResult } from '../tools/types.js';

export const SEND_MESSAGE_TOOL = 'send_message';

const parameters = lazySchema(() =>
  z.object({
    to: z.string().trim().min(1).max(60).describe('A teammate\'s name, "lead", or "*" for everyone on the team.'),
    text: z.string().max(20_000).describe('The message. Say what you need or what you found; the recipient sees only this.'),
    shutdown: z.boolean().optional().describe('Lead only: ask the teammate to end after its current turn (its worktree, if any, is merged back).'),
  }),
);

export type SendMessageArgs = z.infer<typeof parameters>;

export function createSendMessageTool(send: (args: SendMessageArgs) => ToolResult): Tool {
  return defineTool({
    name: SEND_MESSAGE_TOOL,
    description:
      'Send a message to a member of your team: a teammate by name, the lead ("lead"), or everyone ("*"). It is delivered at the recipient\'s next step; an idle teammate wakes up to read it. Messages from others reach you as <teammate-message from="..."> blocks.',
    parameters,
    readOnly: true,
    fileChanges: 'none',
    execute: async (args) => send(args),
  });
}
