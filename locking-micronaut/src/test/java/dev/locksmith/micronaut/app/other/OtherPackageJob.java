package dev.locksmith.micronaut.app.other;

import dev.locksmith.annotation.DistributedLock;

/** A job whose locked method is package-private, subclassed from another package. */
public abstract class OtherPackageJob {
  @DistributedLock(name = "other-package")
  void run() {}
}
