import type { BuildOptions } from 'esbuild';
export function configDefaults(root: string, options: BuildOptions): Promise<Record<string, unknown>>;
