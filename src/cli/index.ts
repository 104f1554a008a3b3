// Bundle entry for dist/cli.js.
export { main } from './main.js';
