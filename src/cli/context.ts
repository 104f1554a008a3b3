// Everything a command needs before it can act: configuration, the session store and the
// agent registry. Problems with any of them surface here as one-line errors.
import { join } from 'node:path';
import { loadAgents, type AgentDefinition } from '../core/agents/index.js';
import { loadCommands, type CommandDefinition } from '../core/commands/index.js';
import { configDir, dataDir, loadConfig, type Config } from '../core/config/index.js';
import { SessionStore } from '../core/store/index.js';
import { packageRoot } from './package-root.js';

export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  configSources: string[];
  store: SessionStore;
  agents: Map<string, AgentDefinition>;
  commands: Map<string, CommandDefinition>;
  warnings: string[];
}

export interface LoadOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function loadContext({ cwd, env }: LoadOptions): CliContext {
  const { config, sources } = loadConfig({ cwd, env });
  const { agents, warnings } = loadAgents({
    builtinDir: join(packageRoot(), 'agents'),
    configDir: configDir(env),
    cwd,
    configAgents: config.agent,
  });
  const commands = loadCommands({ configDir: configDir(env), cwd, configCommands: config.command });
  const store = SessionStore.open(dataDir(env));
  // A session still marked running belongs to a process that died mid-turn.
  store.markInterrupted();
  return {
    cwd,
    env,
    config,
    configSources: sources,
    store,
    agents,
    commands: commands.commands,
    warnings: [...warnings, ...commands.warnings].map((w) => `Warning: ${w.source}: ${w.message}`),
  };
}
