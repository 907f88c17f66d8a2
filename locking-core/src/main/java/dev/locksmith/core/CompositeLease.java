package dev.locksmith.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The lease of a call over several keys: one {@link ActiveLease} per key, in lock order. Each is
 * renewed and watched on its own; the composite is valid only while every one is. Closing it
 * releases the leases it took (in reverse order) and drops its holds on the leases it reentered
 * from an outer call.
 */
final class CompositeLease implements HeldLease {
  private final LockOptions options;
  private final List<ActiveLease> parts;
  private final List<ActiveLease> owned;
  private final List<Runnable> borrowed;
  private final ClosingOnce closing = new ClosingOnce();

  /**
   * @param parts every key's lease, in lock order
   * @param owned the leases this call took, in the order taken
   * @param borrowed the holds on leases an outer call holds, dropped on close
   */
  CompositeLease(
      LockOptions options,
      List<ActiveLease> parts,
      List<ActiveLease> owned,
      List<Runnable> borrowed) {
    this.options = options;
    this.parts = List.copyOf(parts);
    this.owned = List.copyOf(owned);
    this.borrowed = List.copyOf(borrowed);
  }

  /**
   * Releases leases taken so far (in reverse order), with no minimum hold kept, and drops holds: an
   * acquisition given up before its work ran.
   */
  static void abandon(List<ActiveLease> owned, List<Runnable> borrowed) {
    end(owned, borrowed, true);
  }

  private static void end(List<ActiveLease> owned, List<Runnable> borrowed, boolean givenUp) {
    for (int i = owned.size() - 1; i >= 0; i--) {
      if (givenUp) {
        owned.get(i).abandon();
      } else {
        owned.get(i).close();
      }
    }
    borrowed.forEach(Runnable::run);
  }

  private ActiveLease first() {
    return parts.get(0);
  }

  @Override
  public List<Lease> leases() {
    return List.copyOf(parts);
  }

  @Override
  public String name() {
    return options.name();
  }

  @Override
  public @Nullable String key() {
    return first().key();
  }

  @Override
  public String lockId() {
    return first().lockId();
  }

  @Override
  public long fencingToken() {
    return first().fencingToken();
  }

  @Override
  public String ownerToken() {
    return first().ownerToken();
  }

  @Override
  public Duration timeLeft() {
    Duration left = first().timeLeft();
    for (ActiveLease part : parts) {
      Duration partLeft = part.timeLeft();
      if (partLeft.compareTo(left) < 0) {
        left = partLeft;
      }
    }
    return left;
  }

  @Override
  public boolean isValid() {
    if (closing.started()) {
      return false;
    }
    for (ActiveLease part : parts) {
      if (!part.isValid()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void checkValid() {
    if (closing.started()) {
      throw new LockLostException(lockId(), "it was released");
    }
    for (ActiveLease part : parts) {
      part.checkValid();
    }
  }

  @Override
  public LockEvent event() {
    return first().event();
  }

  @Override
  public boolean isClosed() {
    return closing.started();
  }

  @Override
  public @Nullable ActiveLease part(Object provider, String lockId) {
    for (ActiveLease part : parts) {
      ActiveLease found = part.part(provider, lockId);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  @Override
  public Runnable retain() {
    List<Runnable> holds = new ArrayList<>(parts.size());
    for (ActiveLease part : parts) {
      holds.add(part.retain());
    }
    return () -> holds.forEach(Runnable::run);
  }

  @Override
  public void close() {
    closeOnce(false);
  }

  @Override
  public void abandon() {
    closeOnce(true);
  }

  private void closeOnce(boolean abandon) {
    // Two threads closing at once both return once the releases have started (ClosingOnce).
    closing.run(
        () -> {
          HeldLeases.remove(this);
          end(owned, borrowed, abandon);
        });
  }

  @Override
  public String toString() {
    return "Lease" + options.lockIds();
  }
}
