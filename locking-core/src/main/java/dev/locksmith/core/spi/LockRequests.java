package dev.locksmith.core.spi;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks of a batch of requests, and the release of a batch given up, for {@link LockProvider}. */
public final class LockRequests {
  private LockRequests() {}

  /**
   * Checks a batch for {@link LockProvider#tryAcquireAll}: one to {@link
   * LockProvider#MAX_KEYS_PER_CALL} requests with distinct lock ids.
   *
   * @param requests the batch
   * @throws IllegalArgumentException naming what is wrong
   */
  public static void checkBatch(List<LockRequest> requests) {
    if (requests.isEmpty()) {
      throw new IllegalArgumentException("a batch of lock requests is empty");
    }
    if (requests.size() > LockProvider.MAX_KEYS_PER_CALL) {
      throw new IllegalArgumentException(
          "a batch names "
              + requests.size()
              + " locks; at most "
              + LockProvider.MAX_KEYS_PER_CALL
              + " may be taken in one call");
    }
    Set<String> seen = new HashSet<>();
    for (LockRequest request : requests) {
      if (!seen.add(request.lockId())) {
        throw new IllegalArgumentException(
            "a batch names lock " + LockIdText.quoted(request.lockId()) + " twice");
      }
    }
  }

  /**
   * Checks a batch for {@link LockProvider#renewAll}: at most {@link
   * LockProvider#MAX_RENEWALS_PER_CALL} requests.
   *
   * @param requests the batch
   * @throws IllegalArgumentException naming the size and the limit
   */
  public static void checkRenewals(List<RenewalRequest> requests) {
    if (requests.size() > LockProvider.MAX_RENEWALS_PER_CALL) {
      throw new IllegalArgumentException(
          "a batch of "
              + requests.size()
              + " renewals; at most "
              + LockProvider.MAX_RENEWALS_PER_CALL
              + " may be renewed in one call");
    }
  }

  /**
   * Releases {@code taken} in reverse order, going on past failures: the release of a batch given
   * up. A lease whose release fails ends by its TTL.
   */
  static void releaseQuietly(LockProvider provider, List<LeaseGrant> taken) {
    for (int i = taken.size() - 1; i >= 0; i--) {
      try {
        provider.release(taken.get(i));
      } catch (RuntimeException e) {
        // The lease ends by its TTL; the caller's own failure or busy answer is what it sees.
      }
    }
  }
}
