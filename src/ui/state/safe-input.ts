// Every piece of text that reaches the UI's state from the engine (model text, tool input and
// output, titles, questions, permission subjects, errors) passes through `terminalSafe` here,
// once, so no component can draw an escape sequence a model, a tool or a web page wrote.
import type { CoreEvent, ImageRef } from '../../core/events.js';
import { terminalSafe, terminalSafeDeep } from '../../core/text/terminal-safe.js';

const safeRecord = (value: Record<string, unknown>): Record<string, unknown> => terminalSafeDeep(value) as Record<string, unknown>;

/** A file may be named with escape sequences too. */
export function safeImages(images: readonly ImageRef[]): ImageRef[] {
  return images.map((image) => ({ ...image, name: terminalSafe(image.name) }));
}

export function safeEvent(e: CoreEvent): CoreEvent {
  switch (e.type) {
    case 'session.created':
      return { ...e, title: terminalSafe(e.title) };
    case 'session.status':
      return e.reason === undefined ? e : { ...e, reason: terminalSafe(e.reason) };
    case 'message.retrying':
      return { ...e, reason: terminalSafe(e.reason) };
    case 'request.retrying':
      return { ...e, reason: terminalSafe(e.reason), message: terminalSafe(e.message) };
    case 'text.delta':
    case 'thinking.delta': {
      // The hot path: most deltas are clean and keep their identity.
      const text = terminalSafe(e.text);
      return text === e.text ? e : { ...e, text };
    }
    case 'tool.started':
      return { ...e, tool: terminalSafe(e.tool), input: terminalSafeDeep(e.input) };
    case 'tool.progress':
      return { ...e, metadata: safeRecord(e.metadata) };
    case 'tool.completed':
      return {
        ...e,
        output: terminalSafe(e.output),
        ...(e.metadata ? { metadata: safeRecord(e.metadata) } : {}),
        ...(e.images ? { images: safeImages(e.images) } : {}),
      };
    case 'prompt.images':
      return { ...e, images: safeImages(e.images) };
    case 'message.delivered':
    case 'message.dropped':
      return { ...e, text: terminalSafe(e.text) };
    case 'result.arrived':
      return { ...e, child_agent: terminalSafe(e.child_agent), description: terminalSafe(e.description) };
    case 'question.asked':
      return { ...e, question: terminalSafe(e.question), options: e.options.map(terminalSafe) };
    case 'permission.asked':
      return {
        ...e,
        tool: terminalSafe(e.tool),
        subject: terminalSafe(e.subject),
        patterns: e.patterns.map(terminalSafe),
        ...(e.reason !== undefined ? { reason: terminalSafe(e.reason) } : {}),
        ...(e.file !== undefined ? { file: terminalSafe(e.file) } : {}),
        ...(e.outside_sandbox ? { outside_sandbox: terminalSafe(e.outside_sandbox) } : {}),
      };
    case 'error':
      return { ...e, message: terminalSafe(e.message) };
    default:
      return e;
  }
}
