package dev.locksmith.spring.other;

import dev.locksmith.annotation.DistributedLock;

/** A job whose locked method is package-private, subclassed from another package. */
public abstract class OtherPackageJob {
  @DistributedLock
  void run() {}

  /** Calls the locked method as code of this package does. */
  public static void runFromItsPackage(OtherPackageJob job) {
    job.run();
  }
}
