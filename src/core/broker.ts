// The root of every question and permission request. Sessions at any depth reach it through
// their parents; it gives each request a correlation id, announces it as an event, and
// keeps the pending promise until the user (through the UI) answers, `--yes` approves, or
// the asking session is cancelled. Any number may be pending at once, answered in any order.
import type { LiveSession } from './agent/live-session.js';
import type { PermissionReply } from './events.js';
import { newId } from './ids.js';
import { unattendedRefusal } from './permission/control-files.js';
import { answerSettles, type PermissionOutcome, type PermissionQuestion } from './permission/gate.js';
import type { QuestionOutcome } from './tools/types.js';

export interface BrokerMode {
  /** Someone (the TUI) can answer questions and permission requests. */
  interactive: boolean;
  /** Approve every request that would ask (`run --yes`). Never overrides a deny rule, nor approves a control-file write. */
  autoApprove: boolean;
  /** Someone answers questions; defaults to `interactive`. Without, `ask_user` learns nobody can answer. */
  answersQuestions?: boolean;
}

export type { QuestionOutcome };

export interface PendingPermission {
  id: string;
  sessionId: string;
  agent: string;
  path: readonly string[];
  question: PermissionQuestion;
}

export interface PendingQuestion {
  id: string;
  sessionId: string;
  agent: string;
  path: readonly string[];
  question: string;
  options: string[];
}

interface Waiter<T> {
  session: LiveSession;
  settle(value: T): void;
}

export const NON_INTERACTIVE_DENIAL =
  'needs approval, and nobody can approve it in this non-interactive run (pass --yes to `run` to approve such requests).';

export const PERSON_ONLY_DENIAL =
  'would run outside the sandbox, which only a person can approve, and nobody can in this run (--yes does not approve it). Work inside the sandbox, or tell the user which setting would allow it (sandbox.network, sandbox.allow_write, or --sandbox off for a run they trust).';

export class InteractionBroker {
  private readonly permissions = new Map<string, PendingPermission & Waiter<PermissionOutcome>>();
  private readonly questions = new Map<string, PendingQuestion & Waiter<QuestionOutcome>>();

  constructor(private readonly mode: BrokerMode) {}

  askPermission(session: LiveSession, question: PermissionQuestion): Promise<PermissionOutcome> {
    const id = newId('perm');
    const announce = () =>
      session.emit('permission.asked', {
        request_id: id,
        tool: question.tool,
        subject: question.subject,
        permission: question.permission,
        patterns: question.patterns,
        always: question.always ?? question.patterns,
        call_id: question.callId,
        ...(question.file !== undefined ? { file: question.file } : {}),
        ...(question.mustAsk !== undefined ? { reason: question.mustAsk } : {}),
        ...(question.outsideSandbox ? { outside_sandbox: question.outsideSandbox } : {}),
      });
    if (!this.mode.interactive || this.mode.autoApprove) {
      announce();
      const controlFiles = question.controlFiles ?? [];
      // `--yes` approves what the rules left open: never a write to the program's own control
      // files, nor leaving the sandbox, which needs a person (DESIGN §19).
      const reply: PermissionReply = this.mode.autoApprove && controlFiles.length === 0 && question.needsPerson === undefined ? 'once' : 'reject';
      session.emit('permission.replied', { request_id: id, reply });
      if (reply === 'once') return Promise.resolve({ reply });
      // `write notes.txt`: an edit's subject is a diff, whose first line names nothing useful.
      const what = question.file !== undefined ? `${question.tool} ${question.file}` : `${question.tool} (${question.subject.split('\n')[0]})`;
      if (controlFiles.length) return Promise.resolve({ reply, message: unattendedRefusal(question.tool, controlFiles, this.mode.autoApprove) });
      if (question.needsPerson !== undefined) return Promise.resolve({ reply, message: `${what} ${PERSON_ONLY_DENIAL}` });
      return Promise.resolve({ reply, message: `${what} ${NON_INTERACTIVE_DENIAL}` });
    }
    // Registered before it is announced, so a listener may answer it straight away.
    const outcome = new Promise<PermissionOutcome>((resolve) => {
      const onAbort = () => this.settlePermission(id, 'reject', 'The request was cancelled.');
      session.controller.signal.addEventListener('abort', onAbort, { once: true });
      this.permissions.set(id, {
        id,
        sessionId: session.id,
        agent: session.agentName,
        path: session.path,
        question,
        session,
        settle: (outcome) => {
          session.controller.signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
    });
    announce();
    return outcome;
  }

  /** Returns false when no such request is pending (already answered or cancelled). */
  replyPermission(id: string, reply: PermissionReply, message?: string): boolean {
    return this.settlePermission(id, reply, message);
  }

  private settlePermission(id: string, reply: PermissionReply, message?: string): boolean {
    const pending = this.permissions.get(id);
    if (!pending) return false;
    this.permissions.delete(id);
    pending.session.emit('permission.replied', { request_id: id, reply });
    if (reply === 'always') this.resolveCoveredBy(pending);
    pending.settle(message ? { reply, message } : { reply });
    return true;
  }

  /** An "always" grant also answers other pending requests of the same tree that it now covers. */
  private resolveCoveredBy(granted: PendingPermission): void {
    const root = granted.path[0];
    for (const other of [...this.permissions.values()]) {
      if (other.path[0] !== root || other.question.permission !== granted.question.permission) continue;
      if (other.question.needsPerson !== undefined) continue;
      if (answerSettles(granted.question, other.question)) {
        this.settlePermission(other.id, 'once');
      }
    }
  }

  askQuestion(session: LiveSession, question: string, options: string[]): Promise<QuestionOutcome> {
    if (!(this.mode.answersQuestions ?? this.mode.interactive)) return Promise.resolve({ kind: 'unavailable' });
    const id = newId('q');
    const outcome = new Promise<QuestionOutcome>((resolve) => {
      const onAbort = () => this.settleQuestion(id, { kind: 'cancelled' });
      session.controller.signal.addEventListener('abort', onAbort, { once: true });
      this.questions.set(id, {
        id,
        sessionId: session.id,
        agent: session.agentName,
        path: session.path,
        question,
        options,
        session,
        settle: (outcome) => {
          session.controller.signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
    });
    session.emit('question.asked', { question_id: id, question, options });
    return outcome;
  }

  answerQuestion(id: string, answer: string): boolean {
    return this.settleQuestion(id, { kind: 'answered', answer });
  }

  declineQuestion(id: string): boolean {
    return this.settleQuestion(id, { kind: 'declined' });
  }

  private settleQuestion(id: string, outcome: QuestionOutcome): boolean {
    const pending = this.questions.get(id);
    if (!pending) return false;
    this.questions.delete(id);
    pending.session.emit('question.answered', {
      question_id: id,
      ...(outcome.kind === 'answered' ? { answer: outcome.answer } : {}),
      ...(outcome.kind === 'declined' ? { declined: true } : {}),
      ...(outcome.kind === 'cancelled' ? { cancelled: true } : {}),
    });
    pending.settle(outcome);
    return true;
  }

  pendingPermissions(): PendingPermission[] {
    return [...this.permissions.values()].map(({ id, sessionId, agent, path, question }) => ({ id, sessionId, agent, path, question }));
  }

  pendingQuestions(): PendingQuestion[] {
    return [...this.questions.values()].map(({ id, sessionId, agent, path, question, options }) => ({
      id,
      sessionId,
      agent,
      path,
      question,
      options,
    }));
  }
}
