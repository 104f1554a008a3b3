// `ask_user`: the model asks the user something and waits for the answer. It exists at
// every depth; the question travels up the session's parent chain to the root broker, so
// a grandchild's question reaches the user labelled with its path.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AbortedError } from '../errors.js';
import { defineTool, ToolError } from '../tools/types.js';

const parameters = lazySchema(() =>
  z.object({
    question: z.string().min(1).describe('The question, complete on its own: the user may not have seen your work so far.'),
    options: z
      .array(z.string().min(1))
      .max(10)
      .optional()
      .describe('Suggested answers the user can pick from; they may still type their own.'),
  }),
);

export const askUserTool = defineTool({
  name: 'ask_user',
  description: [
    'Ask the user a question and wait for the answer.',
    'Use it when you cannot proceed well without a decision or a fact only the user has: an ambiguous requirement, a choice between approaches with real trade-offs, missing credentials or names.',
    'Do not use it for things you can find out with the other tools, or to ask for permission to run a tool (permission prompts happen on their own).',
    'Offer `options` when the likely answers are few. If the user is unavailable or declines, make a reasonable assumption, say which, and go on.',
  ].join('\n'),
  parameters,
  readOnly: false,
  fileChanges: 'none',
  async execute(args, ctx) {
    if (!ctx.askUser) throw new ToolError('Questions cannot be asked from this context.');
    const outcome = await ctx.askUser(args.question, args.options ?? []);
    switch (outcome.kind) {
      case 'answered':
        return { output: `The user answered: ${outcome.answer}`, metadata: { answer: outcome.answer } };
      case 'declined':
        return { output: 'The user declined to answer. Proceed with your best judgement and say what you assumed.' };
      case 'unavailable':
        return {
          output:
            'The user is not available to answer questions in this run. Make a reasonable assumption, state it in your reply, and continue.',
        };
      case 'cancelled':
        throw new AbortedError('The question was cancelled.');
    }
  },
});
