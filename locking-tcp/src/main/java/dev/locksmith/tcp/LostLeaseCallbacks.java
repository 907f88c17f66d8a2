package dev.locksmith.tcp;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callbacks registered with {@link TcpLockProvider#onLeaseLost}, and telling them of a loss.
 */
final class LostLeaseCallbacks {
  private static final Logger LOG = LoggerFactory.getLogger(TcpLockProvider.class);

  private final List<Consumer<LeaseGrant>> callbacks = new CopyOnWriteArrayList<>();

  /** Registers {@code callback} until the returned handle is closed. */
  AutoCloseable add(Consumer<LeaseGrant> callback) {
    Objects.requireNonNull(callback, "callback");
    callbacks.add(callback);
    return () -> callbacks.remove(callback);
  }

  /** Tells every callback of {@code lease}, lost with its connection. */
  void report(LeaseGrant lease) {
    for (Consumer<LeaseGrant> callback : callbacks) {
      try {
        callback.accept(lease);
      } catch (RuntimeException e) {
        LOG.warn("A lease-lost callback failed for {}", LockIdText.quoted(lease.lockId()), e);
      }
    }
  }
}
