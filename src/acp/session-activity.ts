// What is under way in each root session an editor drives, so /undo, /redo and /rewind never
// race a turn. Contract: `duringTurn` and `duringCommand` mark the work for as long as it runs
// (turns are counted: an editor may send prompts concurrently); `commandRefusal` says, in one
// sentence, why a checkpoint command cannot start now (a turn or another command under way),
// and `promptRefusal` why a prompt cannot (a command under way); both are undefined when the
// work may start.
export class SessionActivity {
  private readonly turns = new Map<string, number>();
  private readonly commands = new Map<string, string>();

  /** `running`: the engine's own word that a turn of this session runs (one started elsewhere). */
  commandRefusal(sessionId: string, command: string, running: boolean): string | undefined {
    const other = this.commands.get(sessionId);
    if (other) return `/${other} is under way in this session: send /${command} once it has finished.`;
    if (running || this.turns.has(sessionId)) return `A turn is under way in this session: wait for it to end (or cancel it) before /${command}.`;
    return undefined;
  }

  promptRefusal(sessionId: string): string | undefined {
    const command = this.commands.get(sessionId);
    return command ? `/${command} is under way in this session: send the prompt once it has finished.` : undefined;
  }

  async duringTurn<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    this.turns.set(sessionId, (this.turns.get(sessionId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (this.turns.get(sessionId) ?? 1) - 1;
      if (left > 0) this.turns.set(sessionId, left);
      else this.turns.delete(sessionId);
    }
  }

  async duringCommand<T>(sessionId: string, command: string, work: () => Promise<T>): Promise<T> {
    this.commands.set(sessionId, command);
    try {
      return await work();
    } finally {
      this.commands.delete(sessionId);
    }
  }
}
