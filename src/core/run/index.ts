/** The public face of this part of the core: what the doors may import. */
export { runHandOverSchema, type RunHandOver } from "./run-hand-over.js";
