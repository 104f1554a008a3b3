// Recognises a command failure the sandbox caused, so the tool result can say so: the model
// then knows to ask for the command to run outside it (`dangerously_disable_sandbox`) or to
// suggest a setting, instead of retrying or working around a "broken" machine.
import type { SandboxPolicy } from './policy.js';

const READ_ONLY = /Read-only file system|EROFS/;
const NO_NETWORK =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|ENETUNREACH|EAI_AGAIN|getaddrinfo|nodename nor servname|No address associated with hostname|Couldn't connect to server/i;
const MISSING = /No such file or directory|ENOENT|Permission denied|EACCES|Operation not permitted|EPERM/;

const ESCALATE =
  'If the command needs this, run it again with dangerously_disable_sandbox: true (the user is asked first), or tell the user which setting would allow it (sandbox.network, sandbox.allow_write).';

/** The note for a failed command's output, or undefined when nothing points at the sandbox. */
export function sandboxBlockNote(output: string, policy: SandboxPolicy): string | undefined {
  const hidden = policy.hidden.find((h) => output.includes(h.path) || output.includes(h.name))?.name;
  if (hidden && (MISSING.test(output) || READ_ONLY.test(output))) {
    return `blocked by the sandbox: ${hidden} is hidden from commands (credentials and this program's own data are never visible inside it). ${ESCALATE}`;
  }
  if (READ_ONLY.test(output)) {
    const where = policy.mode === 'read-only' ? 'nothing is writable but a private /tmp' : `only ${[...policy.writable, '/tmp (private)'].join(', ')} are writable`;
    return `blocked by the sandbox: the file system is read-only there (${policy.mode} sandbox: ${where}). ${ESCALATE}`;
  }
  if (!policy.network && NO_NETWORK.test(output)) {
    return `blocked by the sandbox: commands have no network inside it (sandbox.network is false). ${ESCALATE}`;
  }
  return undefined;
}
