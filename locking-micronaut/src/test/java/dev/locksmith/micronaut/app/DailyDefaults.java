package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;

/** Declares a locked default method, for {@link DefaultMethodTest}. */
interface DailyDefaults {
  @DistributedLock(name = "mn-daily")
  default String daily() {
    return Locks.currentIfAny().map(Lease::lockId).orElse("unlocked");
  }
}
