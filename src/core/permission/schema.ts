// The `permission` config shape (DESIGN §3), shared by the config file, agent files and
// agent entries in the config: `{ edit: "ask", bash: { "*": "ask", "git status*": "allow" } }`.
// Built on first use (once.ts): a start whose files set no permissions never builds them.
import * as z from 'zod';
import { once } from '../once.js';

export const permissionActionSchema = once(() => z.enum(['allow', 'ask', 'deny']));
export type PermissionAction = z.infer<ReturnType<typeof permissionActionSchema>>;

export const permissionConfigSchema = once(() =>
  z.record(z.string(), z.union([permissionActionSchema(), z.record(z.string(), permissionActionSchema())])),
);
export type PermissionConfig = z.infer<ReturnType<typeof permissionConfigSchema>>;
