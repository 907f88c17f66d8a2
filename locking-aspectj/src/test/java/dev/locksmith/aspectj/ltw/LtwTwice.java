package dev.locksmith.aspectj.ltw;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locks;
import java.util.concurrent.atomic.AtomicInteger;

/** Advised at load time by the lock aspect and, again, by the test's {@code AgainAspect}. */
public class LtwTwice {
  @DistributedLock(name = "twice-aspects", key = "#evaluations.incrementAndGet()")
  String locked(AtomicInteger evaluations) {
    return Locks.current().lockId();
  }
}
