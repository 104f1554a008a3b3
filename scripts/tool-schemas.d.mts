import type { BuildOptions } from 'esbuild';
export function toolSchemas(root: string, options: BuildOptions): Promise<Record<string, Record<string, unknown>>>;
