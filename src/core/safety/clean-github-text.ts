/**
 * Issue, comment and review text as a maintainer sees it rendered, not as an attacker typed it.
 * What GitHub shows nobody (HTML comments, invisible and bidirectional controls, Unicode tag
 * characters, image alt text, elements marked hidden) is where instructions aimed at the model
 * hide, so it is removed and counted. Code blocks and inline code are shown verbatim by GitHub,
 * so only invisible characters are removed there.
 */
export interface CleanedGitHubText {
  readonly text: string;
  readonly removed: Array<{ kind: string; count: number }>;
}

const CHARACTER_KINDS: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  // Trojan Source (CVE-2021-42574): embeddings, overrides, isolates and the marks that steer them.
  { kind: "bidi-control", pattern: /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g },
  // U+E0000–U+E007F mirror ASCII invisibly ("ASCII smuggling").
  { kind: "tag-character", pattern: /\uDB40[\uDC00-\uDC7F]/g },
  // Runs of selectors can encode bytes after any visible character.
  { kind: "variation-selector", pattern: /[\uFE00-\uFE0F\u180B-\u180D\u180F]|\uDB40[\uDD00-\uDDEF]/g },
  {
    kind: "invisible-character",
    pattern:
      // eslint-disable-next-line no-misleading-character-class -- each code point is matched on its own
      /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200D\u2060-\u2064\u206A-\u206F\u3164\uFEFF\uFFA0]/g,
  },
];

const HIDING_ATTRIBUTE =
  /\shidden(?:\s|=|\/|$)|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])/i;

type Counts = Map<string, number>;

function count(counts: Counts, kind: string, amount: number): void {
  if (amount > 0) counts.set(kind, (counts.get(kind) ?? 0) + amount);
}

function removeCharacters(text: string, counts: Counts): string {
  let result = text;
  for (const { kind, pattern } of CHARACTER_KINDS) {
    result = result.replace(pattern, () => {
      count(counts, kind, 1);
      return "";
    });
  }
  return result;
}

/** Drops elements whose attributes hide them, up to their closing tag (or the end, if unclosed). */
function removeHiddenElements(prose: string, counts: Counts): string {
  const openTag = /<([A-Za-z][\w-]{0,30})\b([^<>]{0,2000})>/g;
  const parts: string[] = [];
  let cursor = 0;
  for (let match = openTag.exec(prose); match !== null; match = openTag.exec(prose)) {
    const [tag, name = "", attributes = ""] = match;
    if (!HIDING_ATTRIBUTE.test(` ${attributes}`)) continue;
    const closing = new RegExp(`</${name}\\s*>`, "i").exec(prose.slice(match.index + tag.length));
    const end =
      closing === null ? prose.length : match.index + tag.length + closing.index + closing[0].length;
    parts.push(prose.slice(cursor, match.index));
    count(counts, "hidden-html", 1);
    cursor = end;
    openTag.lastIndex = end;
  }
  parts.push(prose.slice(cursor));
  return parts.join("");
}

function neutraliseImages(prose: string, counts: Counts): string {
  return prose
    .replace(/!\[([^\]\n]{0,1000})\]/g, (whole, alt: string) => {
      if (alt.trim() === "" || alt === "image") return whole;
      count(counts, "image-alt-text", 1);
      return "![image]";
    })
    .replace(/<img\b[^<>]{0,4000}>/gi, (tag) =>
      tag.replace(/\s(?:alt|title)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi, () => {
        count(counts, "image-alt-text", 1);
        return "";
      }),
    );
}

function cleanProse(prose: string, counts: Counts): string {
  return neutraliseImages(removeHiddenElements(prose, counts), counts);
}

/**
 * Walks the text in order: an HTML comment hides everything to `-->` (or to the end when
 * unclosed, as GitHub renders it), a fenced block runs to its closing fence, an inline code span
 * to the matching backtick run. Whatever comes first at a position wins, as in the renderer.
 */
function removeHiddenMarkup(text: string, counts: Counts): string {
  const token = /<!--|^ {0,3}(`{3,}|~{3,})[^\n]*$|(`+)/gm;
  const parts: string[] = [];
  let proseStart = 0;
  for (let match = token.exec(text); match !== null; match = token.exec(text)) {
    const [whole, fence, backticks] = match;
    let end: number;
    if (whole === "<!--") {
      const close = text.indexOf("-->", match.index + 4);
      end = close === -1 ? text.length : close + 3;
      parts.push(cleanProse(text.slice(proseStart, match.index), counts));
      count(counts, "html-comment", 1);
      proseStart = end;
    } else if (fence !== undefined) {
      const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`, "m");
      const rest = text.slice(match.index + whole.length);
      const found = closing.exec(rest);
      end = found === null ? text.length : match.index + whole.length + found.index + found[0].length;
      parts.push(cleanProse(text.slice(proseStart, match.index), counts), text.slice(match.index, end));
      proseStart = end;
    } else {
      const run = backticks ?? "";
      const close = new RegExp(`(?<!\`)${run}(?!\`)`).exec(text.slice(match.index + run.length));
      if (close === null) continue;
      end = match.index + run.length + close.index + run.length;
      parts.push(cleanProse(text.slice(proseStart, match.index), counts), text.slice(match.index, end));
      proseStart = end;
    }
    token.lastIndex = Math.max(end, match.index + 1);
  }
  parts.push(cleanProse(text.slice(proseStart), counts));
  return parts.join("");
}

export function cleanGitHubText(text: string): CleanedGitHubText {
  const counts: Counts = new Map();
  const visible = removeHiddenMarkup(removeCharacters(text, counts), counts);
  return { text: visible, removed: [...counts].map(([kind, amount]) => ({ kind, count: amount })) };
}
