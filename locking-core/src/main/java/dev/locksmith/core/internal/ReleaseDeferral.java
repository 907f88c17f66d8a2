package dev.locksmith.core.internal;

import dev.locksmith.core.Lease;

/**
 * Decides whether the release of an annotated method's lease waits for something, such as the
 * completion of a transaction the method joined, so that the next holder sees committed data. The
 * lease stays renewed until the release runs.
 */
@FunctionalInterface
public interface ReleaseDeferral {

  /** Never defers: the lease is released when the method returns. */
  ReleaseDeferral NONE = (lease, release) -> false;

  /**
   * Takes over the release of a lease whose method has returned.
   *
   * @param lease the lease about to be released
   * @param release runs the release; call it exactly once, from any thread
   * @return {@code true} if the release was taken over and will run later, {@code false} to release
   *     now
   */
  boolean deferRelease(Lease lease, Runnable release);
}
