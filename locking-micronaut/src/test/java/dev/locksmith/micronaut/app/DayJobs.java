package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * Jobs locked on the default provider, one lock name per provider test ({@link
 * CuratorProviderTest}, {@link DataSourceProviderTest}): each holds the lock until its gate opens
 * and returns the lease's fencing token.
 */
@Singleton
@Requires(env = {"curator", "datasource"})
class DayJobs {

  @DistributedLock(name = "zk-job", key = "#day", onBusy = OnBusy.FAIL)
  long onZooKeeper(String day, Gate gate) {
    return held(gate);
  }

  @DistributedLock(name = "ds-job", key = "#day", onBusy = OnBusy.FAIL)
  long onDataSource(String day, Gate gate) {
    return held(gate);
  }

  private static long held(Gate gate) {
    gate.pass();
    return Locks.current().fencingToken();
  }
}
