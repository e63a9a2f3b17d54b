import { describeTaskQueueContract } from "./task-queue-contract.js";
import { bookkeepingErrors, openBullmqTestQueue, removeKeys, uniquePrefix } from "./redis-test-helpers.js";

let prefix = "";
describeTaskQueueContract("BullMQ on Redis", {
  setUp() {
    prefix = uniquePrefix();
    bookkeepingErrors.splice(0);
    return Promise.resolve();
  },
  open(options = {}) {
    return openBullmqTestQueue(prefix, { stalledCheckMs: 200, busyRetryMs: 100, ...options });
  },
  async tearDown() {
    await removeKeys(prefix);
    if (bookkeepingErrors.length > 0) console.warn(bookkeepingErrors);
  },
});
