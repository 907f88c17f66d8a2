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
}
