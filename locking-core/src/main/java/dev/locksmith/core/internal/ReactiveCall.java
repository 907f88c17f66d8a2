package dev.locksmith.core.internal;

import dev.locksmith.core.Locksmith;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * One subscription to the reactive result of a locked method, as {@link ReactiveResults} runs it:
 * the call's lock, resolved but not taken, and the method itself, run once the lease is held. An
 * integration makes one per subscription (or hands the same one out each time), so that every
 * subscription runs the method anew under its own lease. Names no Reactor type.
 */
public interface ReactiveCall {

  /**
   * The lock of this call, made by {@link Locksmith#prepare}.
   *
   * @return the lock of this call, made by {@link Locksmith#prepare}
   */
  PreparedCall prepared();

  /**
   * Runs the intercepted method; called only while the lease is held (never when skipped).
   *
   * @return the method's {@code org.reactivestreams.Publisher}, or {@code null}, which counts as
   *     empty
   * @throws Throwable what the method throws, passed to the subscriber as an error signal
   */
  @Nullable Object proceed() throws Throwable;

  /** Runs an intercepted method, as {@link #proceed()} says. */
  @FunctionalInterface
  interface Proceed {
    /**
     * See {@link ReactiveCall#proceed()}.
     *
     * @return what the method returned
     * @throws Throwable what the method threw
     */
    @Nullable Object proceed() throws Throwable;
  }

  /**
   * A call whose lock is already prepared.
   *
   * @param prepared the prepared lock
   * @param proceed runs the method
   * @return the call
   */
  static ReactiveCall of(PreparedCall prepared, Proceed proceed) {
    return new ReactiveCall() {
      @Override
      public PreparedCall prepared() {
        return prepared;
      }

      @Override
      public @Nullable Object proceed() throws Throwable {
        return proceed.proceed();
      }
    };
  }

  /**
   * Prepares the lock of a call now ({@link Locksmith#prepare}: spec, key from these arguments,
   * provider), to be taken when {@link ReactiveResults} says.
   *
   * @param locksmith the engine
   * @param method the annotated method
   * @param targetClass the class of the object the method runs on
   * @param arguments the call's arguments
   * @param proceed runs the method
   * @return the call
   * @throws dev.locksmith.core.LockException when the key or the configuration is bad
   */
  static ReactiveCall of(
      Locksmith locksmith,
      Method method,
      Class<?> targetClass,
      @Nullable Object[] arguments,
      Proceed proceed) {
    return of(locksmith.prepare(new KeyOnlyInvocation(method, targetClass, arguments)), proceed);
  }
}
