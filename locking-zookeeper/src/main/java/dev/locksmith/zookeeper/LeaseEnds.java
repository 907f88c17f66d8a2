package dev.locksmith.zookeeper;

import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends each lease of a provider at its local deadline: its own client deletes its node then, unless
 * a renewal moved the deadline (or changed the node's version) meanwhile. This is also what ends a
 * lease kept for a minimum hold after its provider was closed.
 */
final class LeaseEnds {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseEnds.class);

  private final CuratorFramework client;
  private final ZkCalls calls;
  private final Map<String, Held> leases;
  private final String description;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "locksmith-zk-lease-ends");
            thread.setDaemon(true);
            return thread;
          });

  LeaseEnds(CuratorFramework client, ZkCalls calls, Map<String, Held> leases, String description) {
    this.client = client;
    this.calls = calls;
    this.leases = leases;
    this.description = description;
  }

  /** Schedules (again) the end of {@code held} at its grant's deadline. */
  void schedule(Held held) {
    long delay = held.grant().deadlineNanos() - System.nanoTime();
    try {
      held.endAt(timer.schedule(() -> end(held), Math.max(0, delay), TimeUnit.NANOSECONDS));
    } catch (RejectedExecutionException e) {
      // Shut down: the session's end removes the node.
    }
  }

  private void end(Held held) {
    Held.Written written = held.written();
    if (!written.grant().expired()) {
      return; // renewed meanwhile, scheduled again
    }
    try {
      // At the version of the expired grant: a renewal written since keeps the node.
      calls.callUninterrupted(
          "end",
          written.grant().lockId(),
          () -> client.delete().withVersion(written.version()).forPath(held.path));
      leases.remove(held.data.ownerToken(), held);
    } catch (KeeperException.NoNodeException e) {
      leases.remove(held.data.ownerToken(), held);
    } catch (KeeperException | RuntimeException e) {
      LOG.debug(
          "ZooKeeper {}: ending a lease at its deadline failed: {}", description, e.toString());
    }
  }

  /** Runs {@code last} after every end scheduled so far, {@code delayNanos} from now. */
  void after(long delayNanos, Runnable last) {
    timer.schedule(last, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  /** Stops; ends already scheduled still run. */
  void shutdown() {
    timer.shutdown();
  }
}
