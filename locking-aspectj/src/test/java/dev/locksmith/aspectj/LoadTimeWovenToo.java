package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locks;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Woven at compile time by ajc, and included in load-time weaving in the child JVM as well: the
 * class woven twice.
 */
public class LoadTimeWovenToo {
  /** Created by the child JVM. */
  public LoadTimeWovenToo() {}

  /** Locked; the key counts its evaluations. */
  @DistributedLock(name = "twice-ltw", key = "#evaluations.incrementAndGet()")
  public String locked(AtomicInteger evaluations) {
    return Locks.current().lockId();
  }
}
