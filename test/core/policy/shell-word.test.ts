import { describe, expect, it } from "@jest/globals";
import { loadBashParser } from "../../../src/core/policy/load-bash-parser.js";
import { decodeAnsiC, evaluateWord, type ShellWord } from "../../../src/core/policy/shell-word.js";

async function wordsOf(command: string): Promise<ShellWord[]> {
  const parser = await loadBashParser();
  return parser.parse(command, (root) => {
    const commandNode = root.namedChildren[0];
    const nodes = [
      commandNode?.childForFieldName("name")?.namedChildren[0],
      ...(commandNode?.childrenForFieldName("argument") ?? []),
    ];
    return nodes.map((node) => {
      const result = node === null || node === undefined ? undefined : evaluateWord(node);
      if (result?.success !== true) {
        throw new Error(`not a word in ${command}`);
      }
      return result.value;
    });
  });
}

describe("evaluateWord", () => {
  it("removes quotes and backslashes the way the shell does", async () => {
    const words = await wordsOf(String.raw`\rm 'a b' "c\"d" "e\x" f\ g "r""m" $'\x72\n' "\$x"`);
    expect(words.map((word) => word.value)).toEqual(["rm", "a b", 'c"d', "e\\x", "f g", "rm", "r\n", "$x"]);
    expect(words.every((word) => word.isLiteral)).toBe(true);
  });

  it("marks computed words, globs, brace expansion and tilde", async () => {
    const [, variable, quoted, glob, brace, tilde, prefixed, quotedGlob] = await wordsOf(
      'echo $x "$y" *.ts {a,b} ~/x src/$z "*"',
    );
    expect(variable).toMatchObject({ isLiteral: false, mayBeOption: true });
    expect(quoted).toMatchObject({ isLiteral: false, mayBeOption: true });
    expect(glob).toMatchObject({ isLiteral: false, hasGlob: true, mayBeOption: true });
    expect(brace).toMatchObject({ isLiteral: false, mayBeOption: true });
    expect(tilde).toMatchObject({ isLiteral: true, hasTilde: true });
    // An unquoted expansion is split into words, so even a literal start does not keep it one word.
    expect(prefixed).toMatchObject({ isLiteral: false, mayBeOption: true });
    expect(quotedGlob).toMatchObject({ isLiteral: true, hasGlob: false, value: "*" });
  });

  it("leaves `{}` alone, as bash does", async () => {
    const [, placeholder] = await wordsOf("echo {}");
    expect(placeholder).toMatchObject({ isLiteral: true, value: "{}" });
  });
});

describe("decodeAnsiC", () => {
  it("decodes hex, octal, unicode and control escapes", () => {
    expect(decodeAnsiC(String.raw`\x72\155\u0020\t\cA\'\q`)).toBe("rm \t\x01'\\q");
    expect(decodeAnsiC(String.raw`\U110000`)).toBe("\ufffd");
  });
});
