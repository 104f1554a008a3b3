// The `permission` config shape (DESIGN §3), shared by the config file, agent files and
// agent entries in the config: `{ edit: "ask", bash: { "*": "ask", "git status*": "allow" } }`.
import { z } from 'zod';

export const PermissionActionSchema = z.enum(['allow', 'ask', 'deny']);
export type PermissionAction = z.infer<typeof PermissionActionSchema>;

export const PermissionConfigSchema = z.record(
  z.string(),
  z.union([PermissionActionSchema, z.record(z.string(), PermissionActionSchema)]),
);
export type PermissionConfig = z.infer<typeof PermissionConfigSchema>;
