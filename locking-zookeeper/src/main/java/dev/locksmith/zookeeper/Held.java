package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.LeaseGrant;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * A lease this provider granted and still tracks: its node, the node's data version (the end at the
 * deadline deletes only that version, so a renewal that came first keeps the lease), the latest
 * grant, and whether it was detached (shortened to a minimum hold) or reported lost.
 */
final class Held {
  /**
   * The node's data version and the grant it carries, read and written as one, so that the end at
   * the deadline never deletes a renewal's version on the strength of the grant before it.
   */
  record Written(int version, LeaseGrant grant) {}

  final String path;
  final LeaseData data;
  private volatile Written written;
  private volatile boolean detached;
  private volatile boolean lost;
  private volatile @Nullable ScheduledFuture<?> end;

  Held(String path, LeaseData data, int version, LeaseGrant grant) {
    this.path = path;
    this.data = data;
    this.written = new Written(version, grant);
  }

  /** The node's version and grant as last written. */
  Written written() {
    return written;
  }

  LeaseGrant grant() {
    return written.grant();
  }

  boolean detached() {
    return detached;
  }

  boolean lost() {
    return lost;
  }

  /**
   * Records a renewal, unless the lease was reported lost first (the renewal waited out a dropped
   * connection and was sent again after it): then nothing changes and it returns {@code false}. A
   * hold (a renewal to another ttl than the lease's own: the engine keeping it for a minimum hold,
   * shorter or longer) or one that moves the end earlier detaches the lease.
   */
  synchronized boolean renewed(int newVersion, LeaseGrant renewed, boolean hold) {
    if (lost) {
      return false;
    }
    if (hold || renewed.deadlineNanos() - grant().deadlineNanos() < 0) {
      detached = true;
    }
    written = new Written(newVersion, renewed);
    return true;
  }

  /** Marks the lease lost; returns whether it was not lost before. */
  synchronized boolean markLost() {
    boolean first = !lost;
    lost = true;
    return first;
  }

  /** Replaces the scheduled end of the lease, cancelling the previous one. */
  void endAt(@Nullable ScheduledFuture<?> scheduled) {
    ScheduledFuture<?> previous = end;
    end = scheduled;
    if (previous != null) {
      previous.cancel(false);
    }
  }
}
