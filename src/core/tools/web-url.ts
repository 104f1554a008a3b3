// The one spelling of a web URL that permission rules see and webfetch connects to.
//
// Contract: `normaliseWebUrl` returns the URL without user info (`http://u:pw@host/` →
// `http://host/`), with the host's trailing dots removed (`host.` → `host`) and the host in
// ASCII (IDNA: `bücher.de` → `xn--bcher-kva.de`, which WHATWG URL parsing already does for
// http and https, along with lower case, percent-decoding and IPv4 forms such as
// `2130706433`). Without this, `http://u@host/` or `host.` reached a host that a rule for
// `http://host/*` denied. `normaliseUrlPattern` brings the fixed part of a rule written for a
// URL (`https://Bücher.de./*`) to the same spelling; a pattern whose host holds a wildcard, or
// that is no URL at all, is kept as written.
import { ToolError } from './types.js';

/** The normalised copy of an http(s) URL; a ToolError when nothing of a host is left. */
export function normaliseWebUrl(url: URL): URL {
  const out = new URL(url.href);
  out.username = '';
  out.password = '';
  const host = out.hostname.replace(/\.+$/, '');
  if (host === '') throw new ToolError(`The URL ${url.href} has no host name.`);
  if (host !== out.hostname) out.hostname = host;
  return out;
}

const URL_PATTERN = /^(https?):\/\/([^/?#*]+)(.*)$/is;

/** `https://U@Bücher.de.:443/*` → `https://xn--bcher-kva.de/*`; other patterns unchanged. */
export function normaliseUrlPattern(pattern: string): string {
  const match = URL_PATTERN.exec(pattern);
  if (!match) return pattern;
  const [, scheme, authority, rest] = match;
  let origin: URL;
  try {
    origin = normaliseWebUrl(new URL(`${scheme!.toLowerCase()}://${authority!}/`));
  } catch {
    return pattern;
  }
  return `${origin.protocol}//${origin.host}${rest!}`;
}
