package dev.locksmith.core;

import java.util.Optional;

/** Access to the lease of the locked method or block running on the current thread. */
public final class Locks {
  private Locks() {}

  /**
   * The innermost lease held by the current thread through {@code @DistributedLock} or {@link
   * Locksmith#run}/{@link Locksmith#call}.
   *
   * @return the innermost lease held by the current thread through {@code @DistributedLock} or
   *     {@link Locksmith#run}/{@link Locksmith#call}
   * @throws IllegalStateException when the current thread runs no locked method
   */
  public static Lease current() {
    Lease lease = HeldLeases.current();
    if (lease == null) {
      throw new IllegalStateException(
          "No lease on this thread: Locks.current() is only available inside a method running"
              + " under @DistributedLock or a Locksmith.run/call block (on the thread that called"
              + " it; capture the lease before handing work to another thread)");
    }
    return lease;
  }

  /**
   * The innermost lease held by the current thread, if any.
   *
   * @return the innermost lease held by the current thread, if any
   */
  public static Optional<Lease> currentIfAny() {
    return Optional.ofNullable(HeldLeases.current());
  }
}
