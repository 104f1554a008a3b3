// Copy-on-write editing of UiState for one reducer step: each map, session and item list
// is copied at most once per step, so unchanged parts keep their identity (React memo and
// <Static> rely on that) without the reducer spelling out nested spreads.

import { emptyUsage } from '../../core/messages.js';
import type { SessionNode, TranscriptItem, UiState } from './types.js';

export function createUiState(): UiState {
  return { sessions: {}, roots: [], children: {}, items: {}, calls: {}, questions: [], permissions: [], version: 0 };
}

/** UiState with its maps writable; readonly arrays inside stay readonly and are replaced whole. */
interface MutableState {
  sessions: Record<string, SessionNode>;
  roots: readonly string[];
  children: Record<string, readonly string[]>;
  items: Record<string, readonly TranscriptItem[]>;
  calls: Record<string, { sessionId: string; index: number }>;
  questions: UiState['questions'];
  permissions: UiState['permissions'];
  version: number;
}

export class Draft {
  readonly state: MutableState;
  private readonly copiedSessions = new Set<string>();
  private readonly copiedItems = new Set<string>();
  private readonly copied = new Set<keyof UiState>();
  /** Items placed during this step: nobody has seen them yet, so they may be edited in place. */
  private readonly fresh = new Set<TranscriptItem>();
  changed = false;

  constructor(base: UiState) {
    this.state = { ...base } as MutableState;
  }

  private own<K extends 'sessions' | 'children' | 'items' | 'calls'>(key: K): MutableState[K] {
    if (!this.copied.has(key)) {
      this.copied.add(key);
      this.state[key] = { ...this.state[key] };
    }
    return this.state[key];
  }

  session(id: string): SessionNode | undefined {
    return this.state.sessions[id];
  }

  /** A writable copy of the session; bumps its version and its ancestors' (their subtree changed). */
  editSession(id: string): SessionNode | undefined {
    const current = this.state.sessions[id];
    if (!current) return undefined;
    this.changed = true;
    const sessions = this.own('sessions');
    for (const ancestor of current.path) {
      if (this.copiedSessions.has(ancestor)) continue;
      const node = sessions[ancestor];
      if (!node) continue;
      this.copiedSessions.add(ancestor);
      sessions[ancestor] = { ...node, version: node.version + 1 };
    }
    if (!this.copiedSessions.has(id)) {
      this.copiedSessions.add(id);
      sessions[id] = { ...current, version: current.version + 1 };
    }
    return sessions[id];
  }

  addSession(node: SessionNode): void {
    this.changed = true;
    this.own('sessions')[node.id] = node;
    this.copiedSessions.add(node.id);
    if (node.parentId) {
      const children = this.own('children');
      children[node.parentId] = [...(children[node.parentId] ?? []), node.id];
    } else {
      this.state.roots = [...this.state.roots, node.id];
    }
  }

  items(id: string): readonly TranscriptItem[] {
    return this.state.items[id] ?? [];
  }

  /** A writable copy of a session's item list (the items themselves are replaced, not mutated). */
  editItems(id: string): TranscriptItem[] {
    this.editSession(id);
    const items = this.own('items');
    if (!this.copiedItems.has(id)) {
      this.copiedItems.add(id);
      items[id] = [...(items[id] ?? [])];
    }
    return items[id] as TranscriptItem[];
  }

  pushItem(sessionId: string, make: (id: string) => TranscriptItem): TranscriptItem {
    const list = this.editItems(sessionId);
    const item = make(`${sessionId}:${list.length}`);
    list.push(item);
    this.fresh.add(item);
    if (item.kind === 'tool') this.own('calls')[item.callId] = { sessionId, index: list.length - 1 };
    return item;
  }

  replaceItem(sessionId: string, index: number, item: TranscriptItem): void {
    const list = this.editItems(sessionId);
    list[index] = item;
    this.fresh.add(item);
  }

  /** True for an item this step created or put in place (see `fresh`). */
  isFresh(item: TranscriptItem): boolean {
    return this.fresh.has(item);
  }

  callLocation(callId: string): { sessionId: string; index: number } | undefined {
    return this.state.calls[callId];
  }

  setQueues(patch: Partial<Pick<UiState, 'questions' | 'permissions'>>): void {
    this.changed = true;
    Object.assign(this.state, patch);
  }

  finish(base: UiState): UiState {
    if (!this.changed) return base;
    this.state.version = base.version + 1;
    return this.state;
  }
}

export function newSessionNode(fields: Partial<SessionNode> & Pick<SessionNode, 'id' | 'agent' | 'path'>): SessionNode {
  const path = fields.path;
  return {
    parentId: path.length > 1 ? (path[path.length - 2] ?? null) : null,
    title: '',
    description: '',
    status: 'idle',
    depth: Math.max(0, path.length - 1),
    toolCallId: null,
    createdAt: 0,
    usage: emptyUsage(),
    turnUsage: emptyUsage(),
    turnCost: 0,
    cost: 0,
    messageId: null,
    thinking: false,
    version: 0,
    ...fields,
  };
}
