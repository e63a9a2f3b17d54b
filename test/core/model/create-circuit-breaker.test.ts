import { describe, expect, it } from "@jest/globals";
import { createCircuitBreaker } from "../../../src/core/model/create-circuit-breaker.js";

describe("createCircuitBreaker", () => {
  function breakerWithClock(failureThreshold = 3, coolDownMs = 10_000) {
    const clock = { now: 0 };
    const breaker = createCircuitBreaker({ failureThreshold, coolDownMs, now: () => clock.now });
    return { breaker, clock };
  }

  it("opens after the threshold of consecutive failures, not before", () => {
    const { breaker } = breakerWithClock();
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state()).toBe("closed");
    expect(breaker.tryAcquire()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state()).toBe("open");
    expect(breaker.tryAcquire()).toBe(false);
  });

  it("forgets failures after a success", () => {
    const { breaker } = breakerWithClock();
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordSuccess();
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state()).toBe("closed");
  });

  it("goes half-open after the cool-down and lets exactly one trial through", () => {
    const { breaker, clock } = breakerWithClock(3, 10_000);
    for (let failure = 0; failure < 3; failure += 1) breaker.recordFailure();
    clock.now = 9_999;
    expect(breaker.state()).toBe("open");
    expect(breaker.remainingCoolDownMs()).toBe(1);
    clock.now = 10_000;
    expect(breaker.state()).toBe("half-open");
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state()).toBe("closed");
    expect(breaker.tryAcquire()).toBe(true);
  });

  it("re-opens for a full cool-down when the trial fails", () => {
    const { breaker, clock } = breakerWithClock(3, 10_000);
    for (let failure = 0; failure < 3; failure += 1) breaker.recordFailure();
    clock.now = 10_000;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state()).toBe("open");
    clock.now = 19_999;
    expect(breaker.tryAcquire()).toBe(false);
    clock.now = 20_000;
    expect(breaker.tryAcquire()).toBe(true);
  });

  it("frees the trial slot when the trial ends without a verdict", () => {
    const { breaker, clock } = breakerWithClock(1, 100);
    breaker.recordFailure();
    clock.now = 100;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.recordNeutral();
    expect(breaker.state()).toBe("half-open");
    expect(breaker.tryAcquire()).toBe(true);
  });
});
