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
  final String path;
  final LeaseData data;
  private volatile int version;
  private volatile LeaseGrant grant;
  private volatile boolean detached;
  private volatile boolean lost;
  private volatile @Nullable ScheduledFuture<?> end;

  Held(String path, LeaseData data, int version, LeaseGrant grant) {
    this.path = path;
    this.data = data;
    this.version = version;
    this.grant = grant;
  }

  int version() {
    return version;
  }

  LeaseGrant grant() {
    return grant;
  }

  boolean detached() {
    return detached;
  }

  boolean lost() {
    return lost;
  }

  /** Records a renewal; a renewal that moves the end earlier detaches the lease. */
  void renewed(int newVersion, LeaseGrant renewed) {
    if (renewed.deadlineNanos() - grant.deadlineNanos() < 0) {
      detached = true;
    }
    version = newVersion;
    grant = renewed;
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
