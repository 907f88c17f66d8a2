package dev.locksmith.core;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Told what happens to locks, for metrics and logs. Methods run on the thread that caused the
 * event: the caller, a renewal thread, or for {@link #lost} also a provider's I/O thread (a dropped
 * connection). They must be quick, must not block or call a provider, and should not throw; a
 * listener that throws is logged and otherwise ignored.
 */
public interface LockListener {

  /**
   * A listener told only of lost leases, the one event most callers must act on: stop work whose
   * safety the lease guarded, alert, or record it. For example {@code
   * builder.listener(LockListener.onLost((event, reason) -> alerts.raise(event.lockId(),
   * reason)))}. The action runs where {@link #lost} runs, so it follows the same rules: quick, not
   * blocking.
   *
   * @param action what to do with the lost lease's event and the reason it was lost
   * @return a listener that hands each lost lease to {@code action} and ignores every other event
   */
  static LockListener onLost(BiConsumer<? super LockEvent, ? super String> action) {
    Objects.requireNonNull(action, "action");
    return new LockListener() {
      @Override
      public void lost(LockEvent event, String reason) {
        action.accept(event, reason);
      }

      @Override
      public String toString() {
        return "LockListener.onLost(" + action + ")";
      }
    };
  }

  /**
   * An engine this listener was given to ({@link LocksmithBuilder#listener}) has been built, before
   * any of its lock events: for example to register a meter for each of its providers ({@link
   * Locksmith#providers()}), so that they are reported at zero before their first event. Called
   * once per engine, on the thread that builds it.
   *
   * @param engine the engine
   */
  default void attached(Locksmith engine) {}

  /**
   * A lease was granted after {@code waited}.
   *
   * @param event the lock and its call
   * @param waited how long the call waited
   */
  default void acquired(LockEvent event, Duration waited) {}

  /**
   * The lock was held by another owner and the policy was SKIP or FAIL.
   *
   * @param event the lock and its call
   */
  default void busy(LockEvent event) {}

  /**
   * The lock was held by another owner and the policy was SKIP or FAIL, told after {@code waited}
   * (the time the provider took to answer). The engine calls this one; by default it calls {@link
   * #busy(LockEvent)}.
   *
   * @param event the lock and its call
   * @param waited how long the call took to learn that the lock was busy
   */
  default void busy(LockEvent event, Duration waited) {
    busy(event);
  }

  /**
   * WAIT ran out after {@code waited}.
   *
   * @param event the lock and its call
   * @param waited how long the call waited
   */
  default void timedOut(LockEvent event, Duration waited) {}

  /**
   * The lease was released (or left to run out at its minimum hold time) after {@code held}.
   *
   * @param event the lock and its call
   * @param held how long the lease was held
   */
  default void released(LockEvent event, Duration held) {}

  /**
   * The lease was lost while held, for the reason given. Told before the lease's {@link #released}:
   * a holder closing the lease meanwhile waits until this returns, one more reason for it to be
   * quick.
   *
   * @param event the lock and its call
   * @param reason why the lease was lost
   */
  default void lost(LockEvent event, String reason) {}

  /**
   * The provider failed while acquiring, renewing or releasing.
   *
   * @param event the lock and its call
   * @param error the provider's failure
   */
  default void error(LockEvent event, Throwable error) {}

  /**
   * Whether this listener may be told of a release on the provider's I/O thread that answered it. A
   * release answered later ({@code redis://}, {@code tcp://}) is otherwise handed to one engine
   * thread first, so that listeners never run on a network client's threads; that hand-over costs a
   * thread wake-up per release. When every listener of an engine allows it (and an engine with no
   * listener), the answer is handled where it arrives. Return {@code true} only for a listener that
   * does no I/O and takes no lock another thread may hold for long: counting and timing into
   * in-memory meters, as Micrometer's does.
   *
   * @return whether this listener may run on a provider's I/O threads; {@code false} by default
   */
  default boolean allowsIoThreads() {
    return false;
  }
}
