// Recognising what was typed: `/name args`, `@subagent text`, and near misses of a name.

export interface SlashInput {
  name: string;
  args: string;
}

/** `/review src/a.ts` → { name: 'review', args: 'src/a.ts' }; a path like `/usr/bin` is not a command. */
export function parseSlashInput(text: string): SlashInput | undefined {
  const match = /^\/([\w:.-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match || match[1]!.includes('/')) return undefined;
  return { name: match[1]!, args: (match[2] ?? '').trim() };
}

export interface Mention {
  agent: string;
  prompt: string;
}

/** `@explore find the routes` at the start of a prompt, naming one of `subagents`. */
export function parseMention(text: string, subagents: readonly string[]): Mention | undefined {
  const match = /^\s*@([\w.-]+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match || !subagents.includes(match[1]!)) return undefined;
  const prompt = (match[2] ?? '').trim();
  return prompt ? { agent: match[1]!, prompt } : undefined;
}

/** Edit distance where swapping two neighbouring letters counts as one edit ("hlep" → "help"). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Names close to `name` (typos, prefixes), closest first. */
export function closeMatches(name: string, names: readonly string[], max = 3): string[] {
  const lower = name.toLowerCase();
  return names
    .map((candidate) => {
      const c = candidate.toLowerCase();
      const d = c.startsWith(lower) || lower.startsWith(c) ? 0.5 : distance(lower, c);
      return { candidate, d };
    })
    .filter(({ candidate, d }) => d <= Math.max(1, Math.floor(candidate.length / 3)))
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, max)
    .map((x) => x.candidate);
}

/** One sentence for an unknown command: the close matches, or else every command there is. */
export function unknownCommandMessage(name: string, known: readonly string[]): string {
  const near = closeMatches(name, known);
  if (near.length) return `Unknown command /${name}. Did you mean ${near.map((n) => `/${n}`).join(' or ')}?`;
  const all = [...known].sort();
  return all.length ? `Unknown command /${name}. Commands: ${all.map((n) => `/${n}`).join(', ')}.` : `Unknown command /${name}: no commands are defined.`;
}
