// A dataset file's text, or an error that names the file and why it could not be read (the datasets' one reader).
import { readFileSync } from 'node:fs';

export function readDatasetText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}
