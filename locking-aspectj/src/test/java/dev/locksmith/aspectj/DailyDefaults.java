package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;

/** A locked default method, woven at compile time by ajc in the interface that has its body. */
interface DailyDefaults {
  @DistributedLock(name = "jobs.daily")
  default Lease daily() {
    return Locks.current();
  }

  /** Inherits {@link #daily} without overriding it. */
  final class DailyJob implements DailyDefaults {}
}
