// The combination table of permission modes (DESIGN §26, §7 gate B) and the agent field that
// gives a sub-agent its own mode: a child's effective mode from its parent's and its own, and
// what each mode does with a request that would ask.
import { describe, expect, it } from 'vitest';
import { parseAgentMarkdown } from '../../src/core/agents/index.js';
import { effectiveMode, modeOnAsk, nextCycledMode, PERMISSION_MODES, type PermissionMode } from '../../src/core/permission/modes.js';
import { stricter } from '../../src/core/permission/rules.js';
import type { PermissionAction } from '../../src/core/permission/schema.js';
import type { PermissionRequest } from '../../src/core/tools/types.js';

const edit: PermissionRequest = { permission: 'edit', patterns: ['src/a.ts'], subject: 'diff', file: 'src/a.ts' };
const command: PermissionRequest = { permission: 'bash', patterns: ['make'], subject: 'make' };

/** What a child decides about `request`: the strictest over its effective mode and its parent's. */
function childDecides(parent: PermissionMode, own: PermissionMode | undefined, request: PermissionRequest): PermissionAction {
  return [effectiveMode(parent, own), parent].reduce<PermissionAction>((worst, mode) => stricter(worst, modeOnAsk(mode, request)), 'allow');
}

describe('a child combined with its parent', () => {
  it('takes the mode of a parent in acceptEdits or bypassPermissions, whatever its own', () => {
    for (const own of [undefined, ...PERMISSION_MODES]) {
      expect(effectiveMode('acceptEdits', own)).toBe('acceptEdits');
      expect(effectiveMode('bypassPermissions', own)).toBe('bypassPermissions');
    }
  });

  it('keeps its own mode under a stricter parent, and the parent’s when it has none', () => {
    expect(effectiveMode('default', 'plan')).toBe('plan');
    expect(effectiveMode('plan', undefined)).toBe('plan');
    expect(effectiveMode('dontAsk', 'acceptEdits')).toBe('acceptEdits');
  });

  it('is never looser than its parent for any pair of modes', () => {
    const rank: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };
    for (const parent of PERMISSION_MODES) {
      for (const own of [undefined, ...PERMISSION_MODES]) {
        for (const request of [edit, command]) {
          const alone = modeOnAsk(parent, request);
          expect(rank[childDecides(parent, own, request)], `${parent} + ${own ?? '-'} ${request.permission}`).toBeGreaterThanOrEqual(rank[alone]);
        }
      }
    }
    // Looser own modes change nothing under a default parent; plan and dontAsk tighten it.
    expect(childDecides('default', 'bypassPermissions', command)).toBe('ask');
    expect(childDecides('default', 'acceptEdits', edit)).toBe('ask');
    expect(childDecides('default', 'dontAsk', edit)).toBe('deny');
    expect(childDecides('acceptEdits', 'plan', edit)).toBe('allow');
  });
});

describe('each mode on a request that would ask', () => {
  it('acceptEdits lets edits inside the project through, never a control file, a path outside or a command', () => {
    expect(modeOnAsk('acceptEdits', edit)).toBe('allow');
    expect(modeOnAsk('acceptEdits', { ...edit, mustAsk: 'writes .git/config', controlFiles: [] })).toBe('ask');
    expect(modeOnAsk('acceptEdits', { ...edit, file: '/etc/passwd', patterns: ['/etc/passwd'] })).toBe('ask');
    expect(modeOnAsk('acceptEdits', { ...edit, file: '../x', patterns: ['../x'] })).toBe('ask');
    expect(modeOnAsk('acceptEdits', command)).toBe('ask');
  });

  it('bypassPermissions allows all but what needs a person; dontAsk refuses all', () => {
    expect(modeOnAsk('bypassPermissions', command)).toBe('allow');
    expect(modeOnAsk('bypassPermissions', { ...command, needsPerson: 'outside the sandbox' })).toBe('ask');
    expect(modeOnAsk('bypassPermissions', { ...edit, mustAsk: 'control file' })).toBe('ask');
    expect(modeOnAsk('dontAsk', edit)).toBe('deny');
  });

  it('Shift+Tab cycles default → acceptEdits → plan → default, and from the others back to default', () => {
    expect(nextCycledMode('default')).toBe('acceptEdits');
    expect(nextCycledMode('acceptEdits')).toBe('plan');
    expect(nextCycledMode('plan')).toBe('default');
    expect(nextCycledMode('bypassPermissions')).toBe('default');
    expect(nextCycledMode('dontAsk')).toBe('default');
  });
});

describe('the permissionMode field of an agent file', () => {
  const parse = (value: string) => parseAgentMarkdown(`---\nname: w\npermissionMode: ${value}\n---\nBody\n`, { file: '/p/.claude/agents/w.md', fallbackName: 'w', defaultMode: 'subagent' });

  it('is read as the agent’s own mode', () => {
    const parsed = parse('plan');
    expect(parsed.ok && parsed.agent.permissionMode).toBe('plan');
  });

  it('names a value that is not a mode in a warning and loads the agent without it', () => {
    const parsed = parse('yolo');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.agent.permissionMode).toBeUndefined();
    expect(parsed.warnings).toEqual([
      'permissionMode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions; got "yolo"; ignored, so the agent runs in its parent\'s mode.',
    ]);
  });
});
