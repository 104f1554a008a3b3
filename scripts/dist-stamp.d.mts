export function buildInputsHash(root: string): string;
export function writeDistStamp(outDir: string, inputsHash: string): void;
export function isDistCurrent(root: string, outDir: string): boolean;
