/** The public face of this part of the core: what the doors may import. */
export { readString } from "./html/attribute-readers.js";
export { readTraceFile, type ParsedTrace } from "./read-trace.js";
export { renderTraceHtml } from "./render-trace-html.js";
export { renderTraceStory } from "./render-trace-story.js";
export { TRACE_SCHEMA } from "./trace-format.js";
