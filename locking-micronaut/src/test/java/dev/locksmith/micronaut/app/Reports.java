package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** Locked methods on the default and on a named provider, for {@link ProvidersTest}. */
@Singleton
@Requires(env = "providers")
class Reports {

  @DistributedLock(name = "report", key = "#month", onBusy = OnBusy.FAIL)
  long monthly(String month, Gate gate) {
    gate.pass();
    return Locks.current().fencingToken();
  }

  @DistributedLock(name = "archive", provider = "files", onBusy = OnBusy.SKIP)
  String archive() {
    return Locks.current().lockId();
  }
}
