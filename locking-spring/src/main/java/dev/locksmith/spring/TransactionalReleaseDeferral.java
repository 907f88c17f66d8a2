package dev.locksmith.spring;

import dev.locksmith.core.Lease;
import dev.locksmith.core.internal.ReleaseDeferral;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Defers the release of a lease until the transaction that the locked method joined completes, so
 * that the next holder reads committed data.
 *
 * <p>The lock advisor records, before the method runs, whether a transaction was already open on
 * the thread ({@link #callJoined}); only then is the release deferred. A caller that did not record
 * it (the AspectJ aspect, which always runs inside Spring's transaction proxy) defers whenever a
 * transaction is still open at release time.
 */
final class TransactionalReleaseDeferral implements ReleaseDeferral {
  private static final ThreadLocal<@Nullable Boolean> JOINED = new ThreadLocal<>();

  /** Whether the calling thread has a transaction open now. */
  static boolean transactionOpen() {
    return TransactionSynchronizationManager.isActualTransactionActive()
        && TransactionSynchronizationManager.isSynchronizationActive();
  }

  /** Runs a call with the record of whether a transaction was open before it. */
  static @Nullable Object callJoined(boolean joined, Call call) throws Throwable {
    Boolean previous = JOINED.get();
    JOINED.set(joined);
    try {
      return call.call();
    } finally {
      JOINED.set(previous);
    }
  }

  @Override
  public boolean deferRelease(Lease lease, Runnable release) {
    Boolean joined = JOINED.get();
    if (Boolean.FALSE.equals(joined) || !transactionOpen()) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            release.run();
          }
        });
    return true;
  }

  /** A call that may throw anything. */
  @FunctionalInterface
  interface Call {
    @Nullable Object call() throws Throwable;
  }
}
