// Filling templates and recognising commands and mentions (DESIGN §10).
import { describe, expect, it } from 'vitest';
import { closeMatches, isSubtask, parseMention, parseSlashInput, renderTemplate, unknownCommandMessage } from '../../src/core/commands/index.js';

describe('renderTemplate', () => {
  it('puts everything typed after the command in $ARGUMENTS', () => {
    expect(renderTemplate('Fix: $ARGUMENTS!', '  the flaky   test ')).toBe('Fix: the flaky   test!');
  });

  it('gives $1…$N one word each and the rest of the line to the highest', () => {
    expect(renderTemplate('file=$1 focus=$2', 'src/a.ts error handling and naming')).toBe('file=src/a.ts focus=error handling and naming');
    expect(renderTemplate('$2 then $1', 'a b c')).toBe('b c then a');
    expect(renderTemplate('only $1', 'a b c')).toBe('only a b c');
  });

  it('keeps quoted words together and leaves missing ones empty', () => {
    expect(renderTemplate('[$1] [$2] [$3]', '"two words" x')).toBe('[two words] [x] []');
    expect(renderTemplate('[$1] [$2]', '')).toBe('[] []');
  });

  it('reads $10 as the tenth word, not $1 followed by 0', () => {
    expect(renderTemplate('$1-$10', 'a b c d e f g h i j k')).toBe('a-j k');
  });

  it('mixes $ARGUMENTS with numbered words', () => {
    expect(renderTemplate('$1 | $ARGUMENTS', 'a b')).toBe('a b | a b');
  });

  it('appends the arguments to a template without placeholders, and only when there are some', () => {
    expect(renderTemplate('Review the diff.', 'focus on naming')).toBe('Review the diff.\n\nfocus on naming');
    expect(renderTemplate('Review the diff.', '  ')).toBe('Review the diff.');
  });
});

describe('parseSlashInput', () => {
  it('splits the name from the arguments, across lines', () => {
    expect(parseSlashInput('/review src/a.ts be strict')).toEqual({ name: 'review', args: 'src/a.ts be strict' });
    expect(parseSlashInput('/fix\nline two')).toEqual({ name: 'fix', args: 'line two' });
    expect(parseSlashInput('/help')).toEqual({ name: 'help', args: '' });
  });

  it('does not take a path or ordinary text for a command', () => {
    expect(parseSlashInput('/usr/bin/env is missing')).toBeUndefined();
    expect(parseSlashInput('why does /review fail?')).toBeUndefined();
  });
});

describe('parseMention', () => {
  const subagents = ['explore', 'general'];
  it('recognises @subagent text at the start', () => {
    expect(parseMention('@explore find the routes', subagents)).toEqual({ agent: 'explore', prompt: 'find the routes' });
  });
  it('ignores other agents, files, mentions later in the text, and an empty request', () => {
    expect(parseMention('@build do it', subagents)).toBeUndefined();
    expect(parseMention('@src/a.ts explain', subagents)).toBeUndefined();
    expect(parseMention('ask @explore to look', subagents)).toBeUndefined();
    expect(parseMention('@explore   ', subagents)).toBeUndefined();
  });
});

describe('close matches', () => {
  it('finds typos and prefixes, closest first', () => {
    expect(closeMatches('reveiw', ['review', 'release', 'help'])).toEqual(['review']);
    expect(closeMatches('rev', ['review', 'help'])).toEqual(['review']);
    expect(closeMatches('zzz', ['review', 'help'])).toEqual([]);
  });
  it('lists every command when nothing is close', () => {
    expect(unknownCommandMessage('zzz', ['review', 'help'])).toBe('Unknown command /zzz. Commands: /help, /review.');
    expect(unknownCommandMessage('hlep', ['review', 'help'])).toBe('Unknown command /hlep. Did you mean /help?');
  });
});

describe('when a command runs as a subtask', () => {
  // agent mode × subtask: the OpenCode rule.
  const cases: Array<[mode: 'primary' | 'subagent' | 'all' | undefined, subtask: boolean | undefined, expected: boolean]> = [
    ['subagent', undefined, true],
    ['subagent', true, true],
    ['subagent', false, false],
    ['primary', undefined, false],
    ['primary', true, true],
    ['primary', false, false],
    ['all', undefined, false],
    ['all', true, true],
    ['all', false, false],
    [undefined, undefined, false],
    [undefined, true, true],
  ];
  it.each(cases)('agent mode %s with subtask %s → %s', (mode, subtask, expected) => {
    expect(isSubtask(subtask === undefined ? {} : { subtask }, mode)).toBe(expected);
  });
});
