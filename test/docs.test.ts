import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_FILES, generateDocs } from '../scripts/docs';

const root = resolve(import.meta.dirname, '..');

/** Every Markdown file under `dir`, as paths from the repository root. */
function markdownUnder(dir: string): string[] {
  return readdirSync(resolve(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('the generated reference docs', () => {
  it('are what `pnpm run docs` writes from the code', async () => {
    const generated = await generateDocs();
    for (const file of DOC_FILES) {
      const committed = readFileSync(resolve(root, file), 'utf8');
      expect(
        committed === generated[file],
        `${file} is out of date with the code: run \`pnpm run docs\` and commit the result`,
      ).toBe(true);
    }
  });

  it('come out the same on a second run', async () => {
    const [first, second] = [await generateDocs(), await generateDocs()];
    expect(second).toEqual(first);
  });
});

describe('the documentation', () => {
  it('names no path outside the repository', () => {
    for (const file of ['README.md', ...markdownUnder('docs')]) {
      const text = readFileSync(resolve(root, file), 'utf8');
      expect(
        text.includes('../shared'),
        `${file} names ../shared, which a clone of this repository lacks`,
      ).toBe(false);
    }
  });
});
