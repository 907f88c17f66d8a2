package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * One intercepted call of a method annotated with {@code @DistributedLock}, as an integration
 * (AspectJ, Spring, Micronaut) hands it to {@link dev.locksmith.core.Locksmith#invoke}.
 */
public interface LockedInvocation {

  /**
   * The annotated method, as declared on the target class when it differs from an interface.
   *
   * @return the annotated method, as declared on the target class when it differs from an interface
   */
  Method method();

  /**
   * The class of the object the method runs on (or its declaring class for static methods).
   *
   * @return the class of the object the method runs on (or its declaring class for static methods)
   */
  Class<?> targetClass();

  /**
   * The call's arguments.
   *
   * @return the call's arguments
   */
  @Nullable Object[] arguments();

  /**
   * Runs the method.
   *
   * @return what the method returned
   * @throws Throwable what the method threw
   */
  @Nullable Object proceed() throws Throwable;

  /**
   * A call of {@code method} on {@code target} that proceeds by reflection, for code that
   * intercepts calls itself (a {@link java.lang.reflect.Proxy} handler, a test). What the method
   * throws reaches the caller of {@link #proceed} unwrapped. Make the method accessible first where
   * it needs it.
   *
   * @param target the object the method runs on
   * @param method the annotated method
   * @param arguments the call's arguments
   * @return the call
   */
  static LockedInvocation reflective(Object target, Method method, @Nullable Object... arguments) {
    return new ReflectiveInvocation(target, method, arguments);
  }
}
