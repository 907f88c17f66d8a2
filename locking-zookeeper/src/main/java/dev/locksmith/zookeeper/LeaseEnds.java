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
 * a renewal moved the deadline (or changed the node's version) meanwhile. A version changed by a
 * write that no renewal recorded (one that arrived after its call gave up) ends the node once every
 * call sent before the deadline has had its timeout. This is also what ends a lease kept for a
 * minimum hold after its provider was closed.
 */
final class LeaseEnds {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseEnds.class);
  // After a call's timeout, how long its caller may still take to record an answer it got in time.
  private static final long GRACE_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final CuratorFramework client;
  private final ZkCalls calls;
  private final long graceNanos;
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
    this.graceNanos = calls.timeoutNanos() + GRACE_MARGIN_NANOS;
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
      delete(held, written.version());
    } catch (KeeperException.BadVersionException e) {
      // Written since: a renewal whose reply is on its way records itself and schedules its own
      // end, or a write that arrived late (a touch or renewal that Curator sent again after its
      // call had given up) moved the version without the engine ever hearing of it. Once every
      // call sent before the deadline has had its answer or given up, the lease's owner holds
      // nothing newer than the expired grant, and the node goes whatever its version.
      try {
        timer.schedule(() -> endAfterLateWrite(held, written), graceNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException shutDown) {
        // Shut down: the session's end removes the node.
      }
    } catch (KeeperException | RuntimeException e) {
      LOG.debug(
          "ZooKeeper {}: ending a lease at its deadline failed: {}", description, e.toString());
    }
  }

  private void endAfterLateWrite(Held held, Held.Written expired) {
    if (held.written() != expired) {
      return; // a renewal recorded itself
    }
    try {
      delete(held, -1);
    } catch (KeeperException | RuntimeException e) {
      LOG.debug(
          "ZooKeeper {}: ending a lease at its deadline failed: {}", description, e.toString());
    }
  }

  private void delete(Held held, int version) throws KeeperException {
    try {
      calls.callEvenIfGivenUp(
          "end",
          held.grant().lockId(),
          () -> client.delete().withVersion(version).forPath(held.path));
    } catch (KeeperException.NoNodeException e) {
      // Gone already: released, expired by a taker, or its session ended.
    }
    leases.remove(held.data.ownerToken(), held);
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
