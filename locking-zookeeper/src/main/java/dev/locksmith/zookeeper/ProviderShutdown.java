package dev.locksmith.zookeeper;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a provider closes once its waiters are woken: every lease is given up but those kept for a
 * minimum hold, and the call threads, the lease-end timer and a client of the provider's own close
 * after the last of those has ended, at once when there is none.
 */
final class ProviderShutdown {
  // Under the provider's name, which is what applications set log levels for.
  private static final Logger LOG = LoggerFactory.getLogger(ZkLockProvider.class);

  private final CuratorFramework client;
  private final boolean ownsClient;
  private final ZkCalls calls;
  private final LeaseEnds ends;
  private final String description;

  ProviderShutdown(
      CuratorFramework client,
      boolean ownsClient,
      ZkCalls calls,
      LeaseEnds ends,
      String description) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.calls = calls;
    this.ends = ends;
    this.description = description;
  }

  /** Gives up {@code leases} but those kept for a minimum hold, and shuts down after the last. */
  void close(Collection<Held> leases, Consumer<Held> giveUp) {
    long last = System.nanoTime();
    boolean keep = false;
    for (Held held : leases) {
      if (held.detached() && !held.lost() && !held.grant().expired()) {
        keep = true;
        last = Math.max(last, held.grant().deadlineNanos());
      } else {
        giveUp.accept(held);
      }
    }
    if (!keep) {
      shutDown();
      return;
    }
    long delay = last - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    LOG.info("ZooKeeper {}: closing once its minimum holds have ended", description);
    ends.after(delay, this::shutDown);
  }

  private void shutDown() {
    ends.shutdown();
    calls.close();
    if (ownsClient) {
      client.close();
    }
  }
}
