package dev.locksmith.core.internal.other;

import dev.locksmith.annotation.DistributedLock;

/** A superclass in another package than its subclasses in the tests. */
public abstract class OtherPackageJobs {
  /** Package-private: a subclass in another package, and so its proxy, cannot override it. */
  @DistributedLock
  void packagePrivate() {}

  /** Protected: every subclass can override it. */
  @DistributedLock
  protected void inheritable() {}
}
