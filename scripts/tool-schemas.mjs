// The built-in tools' input schemas (JSON Schema), converted at build time with the program's
// own conversion, for src/core/tools/input-schemas.ts (`__OC_TOOL_SCHEMAS__`): a request
// sends them without converting the tools' zod schemas at every start.
import { buildTimeValue } from './build-time-value.mjs';

/** The value for `__OC_TOOL_SCHEMAS__`; `root` is the package's folder. */
export function toolSchemas(root, options) {
  return buildTimeValue(root, options, { entry: 'src/core/tools/input-schemas.ts', exportName: 'builtinInputSchemas', define: '__OC_TOOL_SCHEMAS__' });
}
