/** The public face of this part of the core: what the doors may import. */
export { type ExitReason, type LoopEvent, type LoopEventListener } from "./loop-events.js";
