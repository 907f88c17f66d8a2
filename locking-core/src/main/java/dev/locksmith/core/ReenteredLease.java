package dev.locksmith.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A nested acquisition of a lease the thread already holds: closing it does not release, but drops
 * the hold it may have taken on the outer lease (once).
 */
final class ReenteredLease implements Lease {
  private final Lease outer;
  private final AtomicReference<@Nullable Runnable> hold;

  ReenteredLease(Lease outer) {
    this(outer, null);
  }

  /**
   * @param dropHold ends a hold this nested acquisition took on the outer lease (see {@link
   *     HeldLease#retain}), run by the first {@link #close}
   */
  ReenteredLease(Lease outer, @Nullable Runnable dropHold) {
    this.outer = outer;
    this.hold = new AtomicReference<>(dropHold);
  }

  @Override
  public String name() {
    return outer.name();
  }

  @Override
  public @Nullable String key() {
    return outer.key();
  }

  @Override
  public String lockId() {
    return outer.lockId();
  }

  @Override
  public long fencingToken() {
    return outer.fencingToken();
  }

  @Override
  public String ownerToken() {
    return outer.ownerToken();
  }

  @Override
  public Duration timeLeft() {
    return outer.timeLeft();
  }

  @Override
  public boolean isValid() {
    return outer.isValid();
  }

  @Override
  public void checkValid() {
    outer.checkValid();
  }

  @Override
  public List<Lease> leases() {
    return outer.leases();
  }

  @Override
  public void close() {
    // The outer holder releases.
    Runnable dropHold = hold.getAndSet(null);
    if (dropHold != null) {
      dropHold.run();
    }
  }
}
