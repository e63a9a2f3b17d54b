/**
 * The Lua scripts of the scheduling gate. Each runs atomically in Redis, so the per-key rule
 * (one running, at most one waiting), the per-installation and global limits and the lease
 * checks hold however many processes call them at once.
 *
 * Every script gets the same two first arguments: the gate's key prefix and the prefix of the
 * BullMQ job keys. A running task is alive while BullMQ's lock key for its job holds the task's
 * lease token; once the lock expires (the worker died or stopped renewing it), the slot it held
 * counts as free. Reading BullMQ's lock key ties this gate to BullMQ's key layout
 * (`<prefix>:<queue>:<jobId>:lock`), which the engine's tests pin. Keys are built inside the
 * scripts, so the gate needs a single Redis node (not Redis Cluster).
 */

const HELPERS = `
local base = ARGV[1]
local lockBase = ARGV[2]
local statsKey = base .. "stats"
local runningKey = base .. "running"
local function taskKey(id) return base .. "t:" .. id end
local function keyStateKey(key) return base .. "k:" .. key end
local function installationKey(id) return base .. "i:" .. id end
local function isAlive(id, token)
  return token ~= false and token ~= nil and token ~= "" and redis.call("GET", lockBase .. id .. ":lock") == token
end
local function setState(id, from, to)
  redis.call("HSET", taskKey(id), "state", to)
  redis.call("HINCRBY", statsKey, from, -1)
  redis.call("HINCRBY", statsKey, to, 1)
end
local function release(id)
  local fields = redis.call("HMGET", taskKey(id), "installationId", "key")
  redis.call("HDEL", runningKey, id)
  if fields[1] then redis.call("HDEL", installationKey(fields[1]), id) end
  if fields[2] then
    local k = keyStateKey(fields[2])
    if redis.call("HGET", k, "running") == id then redis.call("HDEL", k, "running", "runningToken") end
  end
end
local function finish(id, from, to, now, err, retentionMs)
  local t = taskKey(id)
  setState(id, from, to)
  redis.call("HSET", t, "finishedAt", now)
  if err then redis.call("HSET", t, "lastError", err) end
  redis.call("HDEL", t, "token", "workerId", "leaseExpiresAt")
  local key = redis.call("HGET", t, "key")
  if key and redis.call("HGET", keyStateKey(key), "waiting") == id then
    redis.call("HDEL", keyStateKey(key), "waiting")
  end
  redis.call("PEXPIRE", t, retentionMs)
end
local function liveCount(hashKey)
  local entries = redis.call("HGETALL", hashKey)
  local live = 0
  for i = 1, #entries, 2 do
    if isAlive(entries[i], entries[i + 1]) then live = live + 1 else redis.call("HDEL", hashKey, entries[i]) end
  end
  return live
end
local function waitingOf(key)
  return redis.call("HGET", keyStateKey(key), "waiting") or ""
end
`;

/**
 * ARGV: base, lockBase, taskId, deliveryId, key, installationId, payload, maxAttempts, now,
 * retentionMs, kind ("" for none), supersedeKinds (newline-separated, "" for none), reason.
 * Returns {reason, replacedId, "busy"|"free", cancelledRunningId}.
 */
export const ENQUEUE_SCRIPT = `${HELPERS}
local id, deliveryId, key = ARGV[3], ARGV[4], ARGV[5]
local now, retentionMs = tonumber(ARGV[9]), tonumber(ARGV[10])
local deliveryKey = base .. "d:" .. deliveryId
if not redis.call("SET", deliveryKey, id, "NX", "PX", retentionMs) then
  return {"duplicate-delivery", redis.call("GET", deliveryKey) or "", ""}
end
local k = keyStateKey(key)
local replaced = ""
local waiting = redis.call("HGET", k, "waiting")
if waiting and redis.call("HGET", taskKey(waiting), "state") == "queued" then
  finish(waiting, "queued", "superseded", now, false, retentionMs)
  replaced = waiting
end
-- A newer task may end the key's running one in this same step (a push supersedes its review).
local cancelled = ""
local running = redis.call("HGET", k, "running")
if ARGV[12] ~= "" and running and redis.call("HGET", taskKey(running), "state") == "running" then
  local runningKind = redis.call("HGET", taskKey(running), "kind")
  if runningKind then
    for candidate in string.gmatch(ARGV[12], "[^\\n]+") do
      if candidate == runningKind then
        release(running)
        finish(running, "running", "cancelled", now, ARGV[13], retentionMs)
        cancelled = running
        break
      end
    end
  end
end
redis.call("HSET", taskKey(id), "key", key, "deliveryId", deliveryId, "installationId", ARGV[6],
  "payload", ARGV[7], "maxAttempts", ARGV[8], "attempts", 0, "state", "queued",
  "enqueuedAt", now, "availableAt", now)
if ARGV[11] ~= "" then redis.call("HSET", taskKey(id), "kind", ARGV[11]) end
redis.call("HINCRBY", statsKey, "queued", 1)
redis.call("HSET", k, "waiting", id)
running = redis.call("HGET", k, "running")
local isBusy = running and isAlive(running, redis.call("HGET", k, "runningToken"))
return {replaced == "" and "enqueued" or "replaced-waiting", replaced, isBusy and "busy" or "free", cancelled}
`;

/** ARGV: base, lockBase, deliveryId, retentionMs */
export const REMEMBER_DELIVERY_SCRIPT = `${HELPERS}
if redis.call("SET", base .. "d:" .. ARGV[3], "", "NX", "PX", tonumber(ARGV[4])) then return 1 end
return 0
`;

/** ARGV: base, lockBase, globalConcurrency. Says whether another task may start at all. */
export const HAS_CAPACITY_SCRIPT = `${HELPERS}
if liveCount(runningKey) < tonumber(ARGV[3]) then return 1 end
return 0
`;

/**
 * Decides what a worker does with a job BullMQ handed it. ARGV: base, lockBase, taskId, token,
 * workerId, now, leaseMs, perInstallationConcurrency, globalConcurrency, retentionMs.
 * Returns {"run", ...taskHashFields} | {"discard", promoteTaskId} | {"delay", untilMs} | {"park"} | {"busy"}.
 */
export const ADMIT_SCRIPT = `${HELPERS}
local id, token, workerId = ARGV[3], ARGV[4], ARGV[5]
local now, leaseMs = tonumber(ARGV[6]), tonumber(ARGV[7])
local perInstallation, global, retentionMs = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local t = taskKey(id)
local state = redis.call("HGET", t, "state")
if state ~= "queued" and state ~= "running" then return {"discard", ""} end
local f = redis.call("HMGET", t, "key", "installationId", "attempts", "maxAttempts", "availableAt")
local key, installationId = f[1], f[2]
local attempts, maxAttempts, availableAt = tonumber(f[3]), tonumber(f[4]), tonumber(f[5])
local k = keyStateKey(key)
if state == "running" then
  -- BullMQ gave the job back because its lock expired: the worker that held it is gone.
  release(id)
  -- After the last attempt comes one report attempt (see isReportAttempt), then no more.
  if attempts > maxAttempts then
    finish(id, "running", "failed", now,
      "the worker stopped renewing its lease on the report attempt after " .. maxAttempts .. " attempts", retentionMs)
    return {"discard", waitingOf(key)}
  end
  local waiting = waitingOf(key)
  if waiting ~= "" and waiting ~= id then
    finish(id, "running", "superseded", now, "lease expired; a newer request was waiting", retentionMs)
    return {"discard", waiting}
  end
  setState(id, "running", "queued")
  redis.call("HSET", t, "lastError", "lease expired; the worker stopped renewing it", "availableAt", now)
  redis.call("HDEL", t, "token", "workerId", "leaseExpiresAt")
  redis.call("HSET", k, "waiting", id)
  availableAt = now
end
if availableAt > now then return {"delay", tostring(availableAt)} end
local running = redis.call("HGET", k, "running")
if running and running ~= id then
  if isAlive(running, redis.call("HGET", k, "runningToken")) then return {"park"} end
  -- The holder of this key is gone; the waiting request carries the latest intent.
  release(running)
  if redis.call("HGET", taskKey(running), "state") == "running" then
    finish(running, "running", "superseded", now, "lease expired; a newer request was waiting", retentionMs)
  end
end
if liveCount(installationKey(installationId)) >= perInstallation then return {"busy"} end
if liveCount(runningKey) >= global then return {"busy"} end
setState(id, "queued", "running")
redis.call("HSET", t, "attempts", attempts + 1, "token", token, "workerId", workerId,
  "leaseExpiresAt", now + leaseMs)
redis.call("HSET", k, "running", id, "runningToken", token)
if redis.call("HGET", k, "waiting") == id then redis.call("HDEL", k, "waiting") end
redis.call("HSET", runningKey, id, token)
redis.call("HSET", installationKey(installationId), id, token)
local reply = redis.call("HGETALL", t)
table.insert(reply, 1, "run")
return reply
`;

const HELD = `
local id, token = ARGV[3], ARGV[4]
local t = taskKey(id)
local held = redis.call("HGET", t, "state") == "running" and redis.call("HGET", t, "token") == token
`;

/** ARGV: base, lockBase, taskId, token, outcome, now, retentionMs. Returns {1|0, promoteTaskId}. */
export const COMPLETE_SCRIPT = `${HELPERS}${HELD}
if not held then return {0, ""} end
release(id)
redis.call("HSET", t, "outcome", ARGV[5])
finish(id, "running", "completed", tonumber(ARGV[6]), false, tonumber(ARGV[7]))
return {1, waitingOf(redis.call("HGET", t, "key"))}
`;

/**
 * ARGV: base, lockBase, taskId, token, error, retryable ("1"/"0"), now, retentionMs, backoffBaseMs,
 * backoffMaxMs. Returns {state, retryAtOrEmpty, promoteTaskId}.
 */
export const FAIL_SCRIPT = `${HELPERS}${HELD}
if not held then return {"lease-lost", "", ""} end
local err, now, retentionMs = ARGV[5], tonumber(ARGV[7]), tonumber(ARGV[8])
local f = redis.call("HMGET", t, "key", "attempts", "maxAttempts")
local key, attempts, maxAttempts = f[1], tonumber(f[2]), tonumber(f[3])
release(id)
if ARGV[6] ~= "1" or attempts >= maxAttempts then
  finish(id, "running", "failed", now, err, retentionMs)
  return {"failed", "", waitingOf(key)}
end
local waiting = waitingOf(key)
if waiting ~= "" and waiting ~= id then
  finish(id, "running", "superseded", now, err, retentionMs)
  return {"superseded", "", waiting}
end
local delay = math.floor(math.min(tonumber(ARGV[10]), tonumber(ARGV[9]) * 2 ^ math.min(math.max(attempts - 1, 0), 30)))
local retryAt = now + delay
setState(id, "running", "queued")
redis.call("HSET", t, "availableAt", retryAt, "lastError", err)
redis.call("HDEL", t, "token", "workerId", "leaseExpiresAt")
redis.call("HSET", keyStateKey(key), "waiting", id)
return {"queued", tostring(retryAt), ""}
`;

/** ARGV: base, lockBase, taskId, token, leaseExpiresAt. */
export const HEARTBEAT_SCRIPT = `${HELPERS}${HELD}
if not held then return 0 end
redis.call("HSET", t, "leaseExpiresAt", ARGV[5])
return 1
`;

/** ARGV: base, lockBase, taskId, token, handOverJson. Only the lease holder may write it. */
export const SAVE_HAND_OVER_SCRIPT = `${HELPERS}${HELD}
if not held then return 0 end
redis.call("HSET", t, "handOver", ARGV[5])
return 1
`;

/** ARGV: base, lockBase, key, now, retentionMs, reason. Returns {wasRunning, cancelledIds...}. */
export const CANCEL_SCRIPT = `${HELPERS}
local k = keyStateKey(ARGV[3])
local now, retentionMs = tonumber(ARGV[4]), tonumber(ARGV[5])
local result = {0}
local running = redis.call("HGET", k, "running")
if running and redis.call("HGET", taskKey(running), "state") == "running" then
  release(running)
  finish(running, "running", "cancelled", now, ARGV[6], retentionMs)
  result[1] = 1
  table.insert(result, running)
end
local waiting = redis.call("HGET", k, "waiting")
if waiting and redis.call("HGET", taskKey(waiting), "state") == "queued" then
  finish(waiting, "queued", "cancelled", now, ARGV[6], retentionMs)
  table.insert(result, waiting)
end
return result
`;
