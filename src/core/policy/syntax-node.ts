/**
 * A plain copy of one node of the bash syntax tree. The walker asks many small questions of
 * every node; answering them from plain objects instead of through the WebAssembly bindings,
 * which marshal a node on each call, makes a decision several times cheaper.
 */
export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  readonly namedChildren: SyntaxNode[] = [];
  private readonly fieldNames: (string | null)[] = [];
  /** Set when this node or any node below it is an error or a missing token. */
  hasError: boolean;

  constructor(
    readonly id: number,
    readonly type: string,
    readonly text: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    /** Offsets in the parsed source (UTF-16 code units), so gaps between children can be checked. */
    readonly startIndex: number,
    readonly endIndex: number,
  ) {
    this.hasError = this.isError || isMissing;
  }

  get isError(): boolean {
    return this.type === "ERROR";
  }

  addChild(child: SyntaxNode, fieldName: string | null): void {
    this.children.push(child);
    this.fieldNames.push(fieldName);
    if (child.isNamed) {
      this.namedChildren.push(child);
    }
    this.hasError ||= child.hasError;
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  fieldNameForChild(index: number): string | null {
    return this.fieldNames[index] ?? null;
  }

  childForFieldName(fieldName: string): SyntaxNode | null {
    const index = this.fieldNames.indexOf(fieldName);
    return index === -1 ? null : (this.children[index] ?? null);
  }

  childrenForFieldName(fieldName: string): SyntaxNode[] {
    return this.children.filter((_child, index) => this.fieldNames[index] === fieldName);
  }

  descendantsOfType(type: string): SyntaxNode[] {
    const found: SyntaxNode[] = [];
    const pending: SyntaxNode[] = [...this.children];
    for (let index = 0; index < pending.length; index += 1) {
      const node = pending[index] as SyntaxNode;
      if (node.type === type) {
        found.push(node);
      }
      pending.push(...node.children);
    }
    return found;
  }
}
