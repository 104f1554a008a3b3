export function simpleGraphemeCodePoints(Segmenter?: typeof Intl.Segmenter): number[];
export function simpleGraphemePattern(codePoints: readonly number[]): string;
export function narrowPattern(stringWidth: (s: string) => number, codePoints: readonly number[]): string;
