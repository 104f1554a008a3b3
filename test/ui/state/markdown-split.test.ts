import { describe, expect, it } from 'vitest';
import { findSafeCut } from '../../../src/ui/state/markdown-split.js';

describe('findSafeCut', () => {
  it('cuts after the last blank line before a top-level block', () => {
    const text = 'One.\n\nTwo.\n\nThree is strea';
    const cut = findSafeCut(text);
    expect(cut).toBe(text.indexOf('Three'));
  });

  it('never cuts inside a code fence', () => {
    const text = 'Intro.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n\nconst c';
    const cut = findSafeCut(text);
    // The only safe place is before the fence opens.
    expect(cut).toBe(text.indexOf('```'));
    expect(text.slice(0, cut ?? 0)).not.toContain('```');
  });

  it('cuts again after the fence closes, and handles ~~~ and longer fences', () => {
    const text = 'A\n\n~~~~\nx\n\n```\nstill inside\n~~~~\n\nAfter';
    expect(findSafeCut(text)).toBe(text.indexOf('After'));
  });

  it('does not cut before an indented continuation (it would become a code block)', () => {
    const text = '1. item\n\n   more of item\n';
    expect(findSafeCut(text)).toBeNull();
  });

  it('starts scanning at a previous cut', () => {
    const text = 'A\n\nB\n\nC';
    const first = text.indexOf('C');
    expect(findSafeCut(text, first)).toBeNull();
    expect(findSafeCut(text, text.indexOf('B'))).toBe(first);
  });

  it('returns null without a blank line', () => {
    expect(findSafeCut('just one paragraph\nstill going')).toBeNull();
  });
});
