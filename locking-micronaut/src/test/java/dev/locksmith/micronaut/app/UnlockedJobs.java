package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** Locked methods of an application that turns locking off, for {@link DisabledLockingTest}. */
@Singleton
@Requires(env = "disabled")
class UnlockedJobs {

  @DistributedLock(name = "unlocked", onBusy = OnBusy.FAIL)
  String hold(Gate gate) {
    gate.pass();
    return "ran";
  }

  @DistributedLock(name = "unlocked-other")
  String other() {
    return "ran";
  }
}
