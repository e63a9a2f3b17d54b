/**
 * The program that waits inside a warm sandbox (as its pid 1) and runs one command at a time.
 * Only bash builtins run between commands, so a command costs one fork and one exec, like a plain
 * spawn. File descriptors, as opened by the harness: 0 requests, 1 and 2 the commands' output,
 * 5 status lines to the harness, 6 a pipe nobody writes to (`read -t` on it is a builtin sleep).
 * It runs from an execute-only copy of bash, so the commands, which have the same uid, cannot
 * ptrace it or read its memory; the commands themselves run the system's bash.
 *
 * Its arguments are the workspace root and the read-only paths shown beside it (its git metadata),
 * which the scratch folders' clean-up never enters: when the workspace lies under the host's /tmp,
 * they are mounted inside the private /tmp, and are neither scratch nor removable.
 * A request is NUL-separated: nonce, cwd, the number of variables to set, `NAME=value` entries,
 * the number of variables to unset, names, and the bash script. After each command every other
 * process in the sandbox is killed (so leftovers of one command never reach the next), the private
 * scratch folders are emptied, the end marker `agentforge-end-<nonce>` goes to stdout and stderr,
 * and `done <nonce> <status> clean|dirty` to fd 5. `dirty` asks the harness to retire the sandbox.
 */
export const WARM_SANDBOX_SCRIPT = `
shopt -s nullglob dotglob
exec 4<&- 7<&-
scratch=(/tmp "$HOME" /dev/shm)
pause() { read -r -t 0.002 -u 6 _; }
sweep() {
  local pass entry others
  for ((pass = 0; pass < 1000; pass++)); do
    others=()
    for entry in /proc/[1-9]*; do
      [[ \${entry#/proc/} == "$$" ]] || others+=("\${entry#/proc/}")
    done
    ((\${#others[@]})) || return 0
    kill -KILL "\${others[@]}" 2>/dev/null
    pause
  done
  return 1
}
protected=("$@")
# Inside, /var/tmp is a link to /tmp: a path under it is met by the wipe under its real name.
for kept in "$@"; do protected+=("$(readlink -f -- "$kept")"); done
# Empties a scratch folder, except the workspace and its git metadata and the way down to them.
clear_folder() {
  local entry kept leftovers=() descend
  for entry in "$1"/*; do
    descend=keep-going
    for kept in "\${protected[@]}"; do
      if [[ $entry == "$kept" ]]; then
        descend=skip
        break
      elif [[ $kept == "$entry"/* ]]; then
        descend=enter
      fi
    done
    if [[ $descend == skip ]]; then
      continue
    elif [[ $descend == enter ]]; then
      clear_folder "$entry" || return 1
    else
      leftovers+=("$entry")
    fi
  done
  ((\${#leftovers[@]})) || return 0
  rm -rf --one-file-system -- "\${leftovers[@]}" 2>/dev/null
  for entry in "\${leftovers[@]}"; do [[ -e $entry || -L $entry ]] && return 1; done
  return 0
}
wipe() {
  local folder
  for folder in "\${scratch[@]}"; do clear_folder "$folder" || return 1; done
}
# System V objects outlive their creator; a command that leaves one gets its sandbox retired.
has_no_ipc_objects() {
  local kind lines
  for kind in shm sem msg; do
    mapfile -t lines <"/proc/sysvipc/$kind" || return 1
    ((\${#lines[@]} <= 1)) || return 1
  done
}
read_field() { IFS= read -r -d '' "$1"; }
printf 'ready\\n' >&5
while read_field nonce; do
  read_field cwd && read_field count && [[ $count =~ ^[0-9]+$ ]] || exit 2
  assignments=()
  for ((index = 0; index < count; index++)); do read_field entry || exit 2; assignments+=("$entry"); done
  read_field count && [[ $count =~ ^[0-9]+$ ]] || exit 2
  removals=()
  for ((index = 0; index < count; index++)); do read_field entry || exit 2; removals+=("$entry"); done
  read_field script || exit 2
  (
    exec 5>&- 6<&- </dev/null
    unset -v SHLVL PWD OLDPWD "\${removals[@]}"
    ((\${#assignments[@]} == 0)) || export -- "\${assignments[@]}"
    cd -- "$cwd" && exec bash --noprofile --norc -c "$script"
  ) &
  # The command's process exists now: a kill the harness asked for before it did is repeated.
  printf 'started %s\\n' "$nonce" >&5
  # Bash would report a killed job on stderr, which is the command's stream.
  wait "$!" 2>/dev/null
  status=$?
  state=clean
  sweep || state=dirty
  wipe || state=dirty
  has_no_ipc_objects || state=dirty
  printf 'agentforge-end-%s' "$nonce"
  printf 'agentforge-end-%s' "$nonce" >&2
  printf 'done %s %s %s\\n' "$nonce" "$status" "$state" >&5
done
`;
