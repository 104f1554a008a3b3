// Stands in for Intl.Segmenter inside the bundles (scripts/grapheme-plugins.mjs swaps it in
// with esbuild's define/inject). Creating a native segmenter loads ICU's break-iterator
// data, ~10 ms that Ink's text measuring and ANSI tokenising used to pay at import time,
// before the first frame. This one creates the native segmenter only when a string needs
// it: text made only of characters that always form a grapheme cluster of their own (the
// build computes that list from the native segmenter: ASCII, box drawing, common
// punctuation and symbols) is split here, one segment per character, exactly as ICU would.

export interface SegmentData {
  segment: string;
  index: number;
  input: string;
}

type NativeSegmenter = typeof Intl.Segmenter;
type SegmenterArgs = ConstructorParameters<NativeSegmenter>;

/** The segments of a string whose every UTF-16 unit is a grapheme cluster of its own. */
class SimpleSegments implements Iterable<SegmentData> {
  constructor(private readonly input: string) {}

  containing(codeUnitIndex: number = 0): SegmentData | undefined {
    const n = Math.trunc(Number(codeUnitIndex)) || 0;
    if (n < 0 || n >= this.input.length) return undefined;
    return { segment: this.input[n]!, index: n, input: this.input };
  }

  *[Symbol.iterator](): Iterator<SegmentData> {
    const input = this.input;
    for (let index = 0; index < input.length; index++) yield { segment: input[index]!, index, input };
  }
}

/**
 * A segmenter class that defers the native one. `simple` matches whole strings whose
 * characters each form their own grapheme cluster (BMP only, so one UTF-16 unit each).
 */
export function lazySegmenterClass(Native: NativeSegmenter, simple: RegExp): NativeSegmenter {
  class LazySegmenter {
    static supportedLocalesOf(...args: Parameters<NativeSegmenter['supportedLocalesOf']>): string[] {
      return Native.supportedLocalesOf(...args);
    }

    private native: Intl.Segmenter | undefined;
    private readonly args: SegmenterArgs;
    private readonly graphemes: boolean;

    constructor(...args: SegmenterArgs) {
      this.args = args;
      this.graphemes = (args[1]?.granularity ?? 'grapheme') === 'grapheme';
    }

    segment(input: string): Intl.Segments | SimpleSegments {
      const text = String(input);
      if (this.graphemes && simple.test(text)) return new SimpleSegments(text);
      return this.real().segment(text);
    }

    resolvedOptions(): Intl.ResolvedSegmenterOptions {
      return this.real().resolvedOptions();
    }

    private real(): Intl.Segmenter {
      return (this.native ??= new Native(...this.args));
    }
  }
  return LazySegmenter as unknown as NativeSegmenter;
}
