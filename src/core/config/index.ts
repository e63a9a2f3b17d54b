/** The public face of this part of the core: what the doors may import. */
export { keysAtPath, suggestNearestKey } from "./suggest-nearest-key.js";
