// `opencode-ink models [--json]`: every provider usable here (the built-in ones and those the
// config names) with its models' context windows and prices. Keys are never printed, only
// whether one is there.
import type { ModelEntry } from '../../core/config/provider-schema.js';
import { limitOf, modelPrice, providerNames, resolveProvider, type ResolvedProvider } from '../../core/provider/index.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { OpenedProject } from '../../core/project-context.js';
import { formatTokens, table } from '../format.js';

const ANTHROPIC_URL = 'https://api.anthropic.com';

export interface ModelListing {
  /** `provider/model`, as `-m` takes it. */
  id: string;
  context: number | null;
  output: number | null;
  /** USD per million tokens. */
  cost: { input: number; output: number };
}

export interface ProviderListing {
  name: string;
  type: ResolvedProvider['type'];
  base_url: string;
  /** `set`, `missing` (needed and absent) or `not needed`. */
  key: 'set' | 'missing' | 'not needed';
  source: ResolvedProvider['source'];
  models: ModelListing[];
}

export function providerListings(ctx: Pick<OpenedProject, 'config' | 'env'>): ProviderListing[] {
  const out: ProviderListing[] = [];
  for (const name of providerNames(ctx.config)) {
    const provider = resolveProvider(name, ctx.config, ctx.env);
    if (!provider) continue;
    out.push({
      name,
      type: provider.type,
      base_url: provider.baseURL ?? ANTHROPIC_URL,
      key: provider.apiKey ? 'set' : provider.needsKey ? 'missing' : 'not needed',
      source: provider.source,
      models: Object.entries(provider.models)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, entry]) => listing(provider, id, entry, ctx)),
    });
  }
  return out;
}

function listing(provider: ResolvedProvider, id: string, entry: ModelEntry, ctx: Pick<OpenedProject, 'config' | 'env'>): ModelListing {
  const ref = `${provider.name}/${id}`;
  const price = modelPrice(ref, ctx.config, ctx.env);
  return {
    id: ref,
    // Claude models' limits come from the same table the requests use; other servers' models
    // are unknown until the config says.
    context: provider.type === 'anthropic' ? limitOf(`anthropic/${id}`, entry.limit).context : (entry.limit?.context ?? null),
    output: provider.type === 'anthropic' ? limitOf(`anthropic/${id}`, entry.limit).output : (entry.limit?.output ?? null),
    cost: { input: price.input, output: price.output },
  };
}

export function modelsCommand(ctx: Pick<OpenedProject, 'config' | 'env'>, opts: { json: boolean }): string {
  const providers = providerListings(ctx);
  if (opts.json) return JSON.stringify(providers, null, 2);
  const rows: string[][] = [['MODEL', 'CONTEXT', 'OUTPUT', 'INPUT $/M', 'OUTPUT $/M']];
  for (const p of providers) {
    // A server with no models in the config serves whatever it has installed.
    if (p.models.length === 0) rows.push([`${p.name}/<model>`, '-', '-', '0', '0']);
    for (const m of p.models) {
      rows.push([m.id, m.context ? formatTokens(m.context) : '-', m.output ? formatTokens(m.output) : '-', String(m.cost.input), String(m.cost.output)]);
    }
  }
  const head = table([
    ['PROVIDER', 'TYPE', 'URL', 'KEY', 'SOURCE'],
    ...providers.map((p) => [p.name, p.type, p.base_url, p.key, p.source === 'builtin' ? 'built-in' : 'config']),
  ]);
  // Names and URLs come from config files: no escape sequence reaches the terminal.
  return terminalSafe(`${head}\n\n${table(rows)}`);
}
