// Module hooks for trace-imports.mjs: report each resolved URL to the main thread.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port?.postMessage(result.url);
  return result;
}
