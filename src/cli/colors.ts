// Terminal styling: colour only when the stream is a TTY and NO_COLOR is not set.
export interface Style {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function styleFor(stream: NodeJS.WriteStream): Style {
  const on = Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  const wrap = (code: number) => (s: string) => (on ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { red: wrap(31), green: wrap(32), yellow: wrap(33), dim: wrap(2), bold: wrap(1) };
}
