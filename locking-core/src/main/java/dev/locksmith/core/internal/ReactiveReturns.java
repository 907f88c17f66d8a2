package dev.locksmith.core.internal;

import java.util.function.Supplier;

/**
 * Tells, without loading Reactor, whether {@link ReactiveResults} applies: this class names no
 * Reactor type, so an integration may ask it on every call whether or not Reactor is on the class
 * path, and touch {@link ReactiveResults} only when it answers yes.
 */
public final class ReactiveReturns {
  private static final String MONO = "reactor.core.publisher.Mono";
  private static final String FLUX = "reactor.core.publisher.Flux";
  private static final boolean REACTOR_PRESENT = isPresent(MONO);

  private ReactiveReturns() {}

  /**
   * Whether Reactor is on core's class path, so that {@link ReactiveResults} can be loaded.
   *
   * @return whether Reactor is on core's class path, so that {@link ReactiveResults} can be loaded
   */
  public static boolean isReactorPresent() {
    return REACTOR_PRESENT;
  }

  /**
   * Whether a method declared to return {@code type} has its lock held by {@link ReactiveResults}:
   * Reactor is present and the type is {@code Mono} or {@code Flux}.
   *
   * @param type the declared return type
   * @return whether it is Mono or Flux and Reactor is present
   */
  public static boolean isMonoOrFlux(Class<?> type) {
    return REACTOR_PRESENT && (type.getName().equals(MONO) || type.getName().equals(FLUX));
  }

  /**
   * Holds the lock of a method returning {@code Mono} or {@code Flux} ({@link #isMonoOrFlux}) over
   * each subscription to its result, as {@link ReactiveResults} says.
   *
   * @param returnType the method's declared return type
   * @param subscriptions makes the call of each subscription
   * @return a {@code Mono} for a {@code Mono} method, a {@code Flux} for a {@code Flux} method
   * @throws IllegalArgumentException when the type is neither, or Reactor is not present
   */
  public static Object hold(Class<?> returnType, Supplier<? extends ReactiveCall> subscriptions) {
    if (!isMonoOrFlux(returnType)) {
      throw new IllegalArgumentException(
          returnType.getName() + " is not a Reactor Mono or Flux on Locksmith's class path");
    }
    // Two returns, not one conditional expression: javac 25 types the join of Mono and Flux as
    // their common supertype in the stack map, and verifying that loads Reactor's CorePublisher.
    if (returnType.getName().equals(MONO)) {
      return ReactiveResults.mono(subscriptions);
    }
    return ReactiveResults.flux(subscriptions);
  }

  private static boolean isPresent(String name) {
    try {
      Class.forName(name, false, ReactiveReturns.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
