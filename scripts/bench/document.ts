// docs/benchmarks.md is a sequence of sections, each between `<!-- name:begin -->` and `<!-- name:end -->`.
// A run replaces only the sections it wrote and keeps everything else (hand-written notes included) in place.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export const documentFile = "docs/benchmarks.md";

const markers = (name: string) => [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`] as const;

/** The text between a section's markers, or undefined when the document does not have it. */
export function readSection(text: string, name: string): string | undefined {
  const [begin, end] = markers(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  return from >= 0 && to > from ? text.slice(from + begin.length, to).trim() : undefined;
}

/**
 * Replaces each named section in place; a section the document lacks goes after the section named in
 * `after` (when present), else at the end.
 */
export function writeSections(file: string, sections: { name: string; body: string; after?: string }[]): void {
  let text = existsSync(file) ? readFileSync(file, "utf8") : "";
  for (const { name, body, after } of sections) {
    const [begin, end] = markers(name);
    const block = `${begin}\n${body.trim()}\n${end}`;
    const from = text.indexOf(begin);
    const to = text.indexOf(end, from);
    if (from >= 0 && to > from) {
      text = text.slice(0, from) + block + text.slice(to + end.length);
      continue;
    }
    const anchor = after ? text.indexOf(markers(after)[1]) : -1;
    if (anchor >= 0) {
      const at = anchor + markers(after ?? "")[1].length;
      text = `${text.slice(0, at)}\n\n${block}${text.slice(at)}`;
    } else {
      text = `${text.trimEnd()}${text.trim() ? "\n\n" : ""}${block}\n`;
    }
  }
  writeFileSync(file, text);
}
