package dev.locksmith.core;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A nested acquisition of a lease the thread already holds: closing it does not release. */
final class ReenteredLease implements Lease {
  private final Lease outer;

  ReenteredLease(Lease outer) {
    this.outer = outer;
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
  }
}
