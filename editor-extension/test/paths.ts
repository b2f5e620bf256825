import * as fs from 'fs';
import * as path from 'path';

/** editor-extension/ (tests run from out/test/). */
export const EXT_ROOT = path.resolve(__dirname, '..', '..');
/** The isamap repository. */
export const REPO_ROOT = path.resolve(EXT_ROOT, '..');
export const ISAMAP = process.env.ISAMAP_BIN ?? path.join(REPO_ROOT, 'build', 'cli', 'isamap');
export const HAVE_ISAMAP = fs.existsSync(ISAMAP);

export function readJson<T = any>(rel: string): T {
  return JSON.parse(fs.readFileSync(path.join(EXT_ROOT, rel), 'utf8')) as T;
}
