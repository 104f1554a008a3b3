// SessionActivity: a checkpoint command never starts beside a turn or another command, and a
// prompt never starts beside a command; each refusal is one sentence naming what runs.
import { expect, it } from 'vitest';
import { SessionActivity } from '../../src/acp/session-activity.js';

it('refuses a command during a turn or a command, and a prompt during a command, until they end', async () => {
  const activity = new SessionActivity();
  expect(activity.commandRefusal('s', 'undo', false)).toBeUndefined();
  expect(activity.commandRefusal('s', 'undo', true)).toBe('A turn is under way in this session: wait for it to end (or cancel it) before /undo.');

  let endTurn: () => void = () => {};
  const turns = [1, 2].map(() => activity.duringTurn('s', () => new Promise<void>((resolve) => (endTurn = resolve))));
  endTurn();
  await turns[1];
  // One of two concurrent turns still runs.
  expect(activity.commandRefusal('s', 'redo', false)).toMatch(/^A turn is under way/);
  expect(activity.promptRefusal('s')).toBeUndefined();

  let endCommand: () => void = () => {};
  const command = activity.duringCommand('t', 'rewind', () => new Promise<void>((resolve) => (endCommand = resolve)));
  expect(activity.promptRefusal('t')).toBe('/rewind is under way in this session: send the prompt once it has finished.');
  expect(activity.commandRefusal('t', 'undo', false)).toBe('/rewind is under way in this session: send /undo once it has finished.');
  endCommand();
  await command;
  expect(activity.promptRefusal('t')).toBeUndefined();
  expect(activity.commandRefusal('t', 'undo', false)).toBeUndefined();
});
