package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.LeaseGrant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the session that holds a provider's leases and tells the engine's listeners of the leases
 * it loses: every lease when the connection is suspended or the session lost, and a lease kept just
 * after either; a reconnection gives up the leases reported lost.
 */
final class SessionWatch implements ConnectionStateListener {
  // Under the provider's name, which is what applications set log levels for.
  private static final Logger LOG = LoggerFactory.getLogger(ZkLockProvider.class);

  private final Map<String, Held> leases;
  private final Consumer<Held> giveUp;
  private final Runnable wakeWaiters;
  private final String description;
  private final List<Consumer<LeaseGrant>> lossCallbacks = new CopyOnWriteArrayList<>();
  // Between SUSPENDED (or LOST) and RECONNECTED: a lease kept then is reported lost at once.
  private volatile boolean suspended;
  // How many times the session was lost: a take that straddles a loss may hold a node of the
  // session that ended, though RECONNECTED has cleared suspended by the time it is kept.
  private final AtomicLong sessionsLost = new AtomicLong();

  SessionWatch(
      Map<String, Held> leases, Consumer<Held> giveUp, Runnable wakeWaiters, String description) {
    this.leases = leases;
    this.giveUp = giveUp;
    this.wakeWaiters = wakeWaiters;
    this.description = description;
  }

  AutoCloseable onLeaseLost(Consumer<LeaseGrant> callback) {
    lossCallbacks.add(callback);
    return () -> lossCallbacks.remove(callback);
  }

  /** How many times the session was lost so far; taken before a take, for {@link #kept}. */
  long sessionsLost() {
    return sessionsLost.get();
  }

  /**
   * Reports a lease just kept lost when the connection is suspended now, or when the session was
   * lost since the take began ({@code sessionsLostBefore}).
   */
  void kept(Held held, long sessionsLostBefore) {
    if (suspended) {
      // Its last answer came just before the connection dropped, and the listener had already
      // gone over the leases: reported lost like them, or nothing would until LOST, which comes
      // later than the ensemble may expire the session.
      lost(held);
    } else if (sessionsLost.get() != sessionsLostBefore) {
      // The session was lost while the caller stalled after the last answer, and a new one has
      // connected since: the node went with the old session (or, created in the new one, is given
      // up), and nothing else would report the lease now.
      lost(held);
      giveUp.accept(held);
    }
  }

  @Override
  public void stateChanged(CuratorFramework client, ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      if (state == ConnectionState.LOST) {
        sessionsLost.incrementAndGet();
      }
      suspended = true;
      LOG.info("ZooKeeper {}: connection {}; every lease is reported lost", description, state);
      for (Held held : leases.values()) {
        if (held.detached() && state == ConnectionState.SUSPENDED) {
          // Shortened to its minimum hold, it has no holder left to tell, and it must live until
          // its end though the connection drops: only the end of the session takes its node.
          continue;
        }
        lost(held);
      }
    } else if (state == ConnectionState.RECONNECTED) {
      suspended = false;
      // Leases reported lost are given up: their nodes go, so that the queue moves on.
      for (Held held : leases.values()) {
        if (held.lost()) {
          giveUp.accept(held);
        }
      }
    }
    wakeWaiters.run();
  }

  private void lost(Held held) {
    if (held.markLost()) {
      for (Consumer<LeaseGrant> callback : lossCallbacks) {
        callback.accept(held.grant());
      }
    }
  }
}
