import { afterEach, describe, expect, it } from 'vitest';
import { agentColor, roleColor, useColor } from '../../../src/ui/theme.js';

describe('theme', () => {
  const saved = process.env['NO_COLOR'];
  afterEach(() => {
    if (saved === undefined) delete process.env['NO_COLOR'];
    else process.env['NO_COLOR'] = saved;
  });

  it('turns every colour off when NO_COLOR is set', () => {
    delete process.env['NO_COLOR'];
    expect(useColor()).toBe(true);
    expect(roleColor('error')).toBe('red');
    process.env['NO_COLOR'] = '1';
    expect(useColor()).toBe(false);
    expect(roleColor('error')).toBeUndefined();
    expect(agentColor('explore', '#ff0000')).toBeUndefined();
  });

  it('gives agents a configured colour or a stable palette colour', () => {
    delete process.env['NO_COLOR'];
    expect(agentColor('reviewer', '#ff8800')).toBe('#ff8800');
    expect(agentColor('my-custom-agent')).toBe(agentColor('my-custom-agent'));
    expect(agentColor('my-custom-agent')).toBeTruthy();
    expect(agentColor('explore')).not.toBe(agentColor('build'));
  });
});
