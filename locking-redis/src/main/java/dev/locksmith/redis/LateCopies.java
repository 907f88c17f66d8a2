package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockRequest;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Copies of refused acquires still on their way. Redisson sends a command again once its reply is
 * later than the client's timeout ({@link ClientLimits#resendAfterNanos}), and the first copy can
 * reach Redis last: arriving after the holder's release, it would take the lock for its whole TTL
 * on behalf of a caller told the lock was busy. So a call that ends without a grant after an
 * attempt refused that late marks its owner tokens abandoned ({@link Compensations}), which refuses
 * such a copy. Attempts answered sooner, nearly all, send nothing more; an attempt that failed was
 * compensated where it failed, with the same owner tokens.
 */
final class LateCopies {
  /** One acquire call, whose attempts go through {@link Attempts#send}. */
  @FunctionalInterface
  interface Call<T, E extends Exception> {
    Optional<T> run(Attempts attempts) throws E;
  }

  private final long resendAfterNanos;
  private final Compensations compensations;

  LateCopies(long resendAfterNanos, Compensations compensations) {
    this.resendAfterNanos = resendAfterNanos;
    this.compensations = compensations;
  }

  /**
   * Runs {@code call} for {@code requests} (their keys in {@code keys}, the same order), marking
   * their owner tokens abandoned, without waiting, when it ends without a grant after an attempt
   * refused late.
   */
  <T, E extends Exception> Optional<T> guard(
      List<LockRequest> requests, List<LockKeys> keys, Call<T, E> call) throws E {
    Attempts attempts = new Attempts();
    boolean granted = false;
    try {
      Optional<T> grant = call.run(attempts);
      granted = grant.isPresent();
      return grant;
    } finally {
      if (!granted && attempts.refusedLate && !attempts.failed) {
        for (int i = 0; i < requests.size(); i++) {
          compensations.release(requests.get(i), keys.get(i));
        }
      }
    }
  }

  /** The attempts of one call. */
  final class Attempts {
    private boolean refusedLate;
    private boolean failed;

    private Attempts() {}

    /** Sends one attempt now: its answer, noted as refused late when it is. */
    <A> A send(Supplier<A> attempt, Predicate<A> granted) {
      long sentAt = System.nanoTime();
      A answer;
      try {
        answer = attempt.get();
      } catch (LockProviderException e) {
        failed = true;
        throw e;
      }
      if (!granted.test(answer) && System.nanoTime() - sentAt >= resendAfterNanos) {
        refusedLate = true;
      }
      return answer;
    }
  }
}
