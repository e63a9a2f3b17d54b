/** The public face of this part of the core: what the doors may import. */
export { type ModelClient } from "./model-types.js";
