/**
 * Every progress comment of a task ends with a hidden marker naming the task, so a later attempt
 * that never learnt the comment's id (its worker died between posting it and recording it) can
 * still find it. Only the bot's own comments are trusted with it (`findTaskProgressComment`): a
 * person can paste the marker, not post as the bot. A task id is a queue-made UUID, not a secret.
 */
export function renderTaskCommentMarker(taskId: string): string {
  return `<!-- agentforge-task: ${taskId} -->`;
}

/** Appends the marker to a text unless it is there already (a comment is rewritten whole). */
export function withTaskCommentMarker(text: string, marker: string): string {
  return text.includes(marker) ? text : `${text}\n\n${marker}`;
}

const MARKER_KEY = "agentforge-task:";

/**
 * Breaks every marker in a text the App did not write itself (a model's summary, a quoted config
 * key): a space after the key, which no marker has, so no comment can be made to look like another
 * task's. Inserting only a space cannot form a new key, so one pass is enough.
 */
export function defuseTaskCommentMarkers(text: string): string {
  return text.includes(MARKER_KEY) ? text.split(MARKER_KEY).join("agentforge-task :") : text;
}
