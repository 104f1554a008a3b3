// Finds the token under the cursor that opens a menu (`/command` at the very start, the
// model after `/model `, or an `@mention` word) and turns the app's commands, sub-agents and files into menu items.

import type { Buffer } from './editor.js';

export interface NamedItem {
  name: string;
  description?: string;
}

export interface CompletionSources {
  commands?: readonly NamedItem[];
  subagents?: readonly NamedItem[];
  /** What `/model ` completes to. */
  models?: readonly NamedItem[];
  /** Provided by the app (which honours .gitignore); directories end with '/'. */
  completeFile?: (prefix: string) => readonly string[];
}

export interface MenuContext {
  kind: 'command' | 'mention' | 'model';
  /** What was typed after '/' or '@' (or after `/model `). */
  query: string;
  /** The token (with its sigil) spans [start, end). */
  start: number;
  end: number;
}

export interface MenuItem {
  kind: 'command' | 'agent' | 'file' | 'model';
  label: string;
  /** Replaces the token, sigil included. */
  insert: string;
  description?: string;
}

/** Enough for any screen; the menu itself shows a window of these. */
const MAX_ITEMS = 50;

export function menuContext(b: Buffer): MenuContext | undefined {
  const before = b.text.slice(0, b.cursor);
  const tokenEnd = endOfToken(b.text, b.cursor);
  const model = /^\/model[ \t]+(\S*)$/.exec(before);
  if (model) return { kind: 'model', query: model[1] ?? '', start: before.length - (model[1] ?? '').length, end: tokenEnd };
  const command = /^\/(\S*)$/.exec(before);
  if (command) return { kind: 'command', query: command[1] ?? '', start: 0, end: tokenEnd };
  const wordStart = Math.max(before.lastIndexOf(' '), before.lastIndexOf('\n'), before.lastIndexOf('\t')) + 1;
  const word = before.slice(wordStart);
  if (word.startsWith('@')) return { kind: 'mention', query: word.slice(1), start: wordStart, end: tokenEnd };
  return undefined;
}

export function menuItems(ctx: MenuContext, sources: CompletionSources): MenuItem[] {
  if (ctx.kind === 'command') {
    return rank(sources.commands ?? [], ctx.query).map((c) => ({
      kind: 'command' as const,
      label: `/${c.name}`,
      insert: `/${c.name} `,
      ...(c.description !== undefined ? { description: c.description } : {}),
    }));
  }
  if (ctx.kind === 'model') {
    return rank(sources.models ?? [], ctx.query).map((m) => ({
      kind: 'model' as const,
      label: m.name,
      insert: m.name,
      ...(m.description !== undefined ? { description: m.description } : {}),
    }));
  }
  const q = ctx.query.toLowerCase();
  const agent = (a: NamedItem): MenuItem => ({
    kind: 'agent',
    label: `@${a.name}`,
    insert: `@${a.name} `,
    ...(a.description !== undefined ? { description: a.description } : {}),
  });
  const ranked = rank(sources.subagents ?? [], ctx.query);
  const agentPrefix = ranked.filter((a) => a.name.toLowerCase().startsWith(q)).map(agent);
  // A loose agent match must not push the file the user is spelling out off the top.
  const agentInner = ranked.filter((a) => !a.name.toLowerCase().startsWith(q)).map(agent);
  const files: MenuItem[] = (sources.completeFile?.(ctx.query) ?? []).slice(0, MAX_ITEMS).map((path) => ({
    kind: 'file' as const,
    label: path,
    // A directory stays open for the next path segment; a file ends the mention.
    insert: `@${path}${path.endsWith('/') ? '' : ' '}`,
  }));
  return [...agentPrefix, ...files, ...agentInner].slice(0, MAX_ITEMS);
}

export function applyCompletion(b: Buffer, ctx: MenuContext, item: MenuItem): Buffer {
  const after = b.text.slice(ctx.end);
  // Don't double the separator when the completed token was already followed by one.
  const insert = item.insert.endsWith(' ') && /^\s/.test(after) ? item.insert.slice(0, -1) : item.insert;
  const text = b.text.slice(0, ctx.start) + insert + after;
  const cursor = ctx.start + insert.length + (insert === item.insert ? 0 : 1);
  return { text, cursor: Math.min(cursor, text.length) };
}

/** Prefix matches first, then substring matches, each in the order given. */
function rank(items: readonly NamedItem[], query: string): NamedItem[] {
  const q = query.toLowerCase();
  const prefix = items.filter((i) => i.name.toLowerCase().startsWith(q));
  const inner = items.filter((i) => !i.name.toLowerCase().startsWith(q) && i.name.toLowerCase().includes(q));
  return [...prefix, ...inner];
}

function endOfToken(text: string, from: number): number {
  const m = /\s/.exec(text.slice(from));
  return m ? from + m.index : text.length;
}
