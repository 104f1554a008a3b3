// The configuration of no file at all, computed at build time with the program's own full
// schema, for src/core/config/sections.ts (`__OC_CONFIG_DEFAULTS__`): a start whose config
// files leave a key out takes that key's default from this table instead of building its schema.
import { buildTimeValue } from './build-time-value.mjs';

/** The value for `__OC_CONFIG_DEFAULTS__`; `root` is the package's folder. */
export function configDefaults(root, options) {
  return buildTimeValue(root, options, { entry: 'src/core/config/sections.ts', exportName: 'configDefaults', define: '__OC_CONFIG_DEFAULTS__' });
}
