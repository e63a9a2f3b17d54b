/** Statement nodes whose named children are statements to walk, in order. */
export const CONTAINER_TYPES = new Set([
  "program",
  "list",
  "do_group",
  "else_clause",
  "elif_clause",
  "if_statement",
  "while_statement",
  "subshell",
  "negated_command",
  "compound_statement",
]);
