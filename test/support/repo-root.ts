// The repository's root folder, for tests that run its files (the built binary, scripts).
// A module of its own so that importing it loads nothing else (harness.ts loads the engine).
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
