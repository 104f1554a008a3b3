import type { BuildOptions } from 'esbuild';
import type { BuiltinAgentEntry } from '../src/core/agents/builtin-cache.js';
export function parseBuiltinAgents(root: string, options: BuildOptions): Promise<BuiltinAgentEntry[]>;
