/*
 * What a permission ask is about, in a few words, for titles (ACP `request_permission`, the
 * library's `canUseTool` request): the tool and its target — `write CHANGELOG.md`,
 * `bash npm test`, `webfetch https://…` — never the diff or a whole multi-line command, which
 * belong in the body.
 *
 * Contract: `askAction({ tool, subject, file? })` is one line: the tool, a space and the file
 * the call would change when there is one, else the first line of the subject, cut to
 * ASK_TARGET_MAX characters with `…` (also when lines were left out). Never empty: the tool
 * alone when there is no target.
 */

/** Longest target a title carries. */
export const ASK_TARGET_MAX = 100;

export interface AskDescription {
  tool: string;
  subject: string;
  /** The file a write or an edit would change, as shown to the user. */
  file?: string | undefined;
}

export function askAction(ask: AskDescription): string {
  const target = ask.file !== undefined && ask.file !== '' ? oneLine(ask.file) : firstLine(ask.subject);
  return target ? `${ask.tool} ${target}` : ask.tool;
}

function firstLine(text: string): string {
  const lines = text.trim().split(/\r?\n/);
  const first = (lines[0] ?? '').trim();
  const cut = first.length > ASK_TARGET_MAX ? first.slice(0, ASK_TARGET_MAX - 1) : first;
  return cut !== first || lines.length > 1 ? `${cut.trimEnd()}…` : first;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
