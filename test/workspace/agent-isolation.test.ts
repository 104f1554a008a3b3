// An agent file or config entry may ask to run as an isolated sub-agent (DESIGN §17).
import { describe, expect, it } from 'vitest';
import { parseAgentMarkdown } from '../../src/core/agents/index.js';
import { ConfigSchema } from '../../src/core/config/schema.js';

const parse = (front: string) => parseAgentMarkdown(`---\n${front}\n---\nYou change code.`, { file: '/x/worker.md', fallbackName: 'worker', defaultMode: 'subagent' });

describe('isolation settings', () => {
  it('reads `isolation: worktree` from an agent file', () => {
    const parsed = parse('description: Changes code\nisolation: worktree');
    expect(parsed.ok && parsed.agent.isolation).toBe('worktree');
  });

  it('skips an agent file with an unknown isolation, naming the field', () => {
    const parsed = parse('isolation: container');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toMatch(/isolation/);
  });

  it('refuses link folders that leave the repository', () => {
    for (const link of ['/etc', '../outside', 'a/../../b']) {
      const result = ConfigSchema.safeParse({ subagents: { worktree: { link: [link] } } });
      expect(result.success).toBe(false);
    }
    expect(ConfigSchema.parse({ subagents: { worktree: { link: ['packages/app/node_modules'] } } }).subagents.worktree.link).toEqual(['packages/app/node_modules']);
  });
});
