package dev.locksmith.core;

import org.jspecify.annotations.Nullable;

/**
 * A lease the engine hands to a call or an application: one key's {@link ActiveLease}, or a {@link
 * CompositeLease} over several keys.
 */
interface HeldLease extends Lease {

  /** The event that names this lease to listeners (over several keys, the first key's). */
  LockEvent event();

  /**
   * Ends the lease of an acquisition given up before its work ran (timed out, refused, cancelled):
   * released at once, with no minimum hold kept, since nothing ran under it.
   */
  void abandon();

  /** Whether its holder closed it. */
  boolean isClosed();

  /**
   * The valid lease of one lock id through a provider within this one, or {@code null}: what a
   * nested call on that lock id reenters.
   */
  @Nullable ActiveLease part(Object provider, String lockId);

  /**
   * Holds the lease for a result that completes later.
   *
   * @return the action that drops this hold; running it more than once does nothing
   */
  Runnable retain();
}
