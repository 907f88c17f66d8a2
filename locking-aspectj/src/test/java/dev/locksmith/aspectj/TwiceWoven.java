package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locks;
import java.util.concurrent.atomic.AtomicInteger;

/** Advised by the lock aspect and, again, by {@link AgainAspect}. */
class TwiceWoven {
  @DistributedLock(name = "twice", key = "#evaluations.incrementAndGet()")
  public String locked(AtomicInteger evaluations) {
    return Locks.current().lockId();
  }
}
