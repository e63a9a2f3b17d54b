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
