// Rendering helpers shared by transcript, dialogs and trees: markdown, code, diffs, text fitting.

export { Markdown, lexMarkdown, loadMarkdown, type MarkdownProps } from './markdown.js';
export { CodeBlock, type CodeBlockProps } from './code-block.js';
export { highlightLines, loadHighlighter, resolveLanguage, type Segment } from './highlight.js';
export { DiffView, type DiffViewProps } from './diff-view.js';
export { parseUnifiedDiff, diffStrings, diffStats, type DiffLine } from './diff-lines.js';
export { layoutTable, columnWidths, type Align, type TableLines } from './table-layout.js';
export { displayWidth, truncate, oneLine, padEnd, trimLines, moreLines, type TrimmedLines } from './text.js';
export { WrappedText, dropWrapIndent } from './wrapped-text.js';
