package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * One intercepted call of a method annotated with {@code @DistributedLock}, as an integration
 * (AspectJ, Spring, Micronaut) hands it to {@link dev.locksmith.core.Locksmith#invoke}.
 */
public interface LockedInvocation {

  /** The annotated method, as declared on the target class when it differs from an interface. */
  Method method();

  /** The class of the object the method runs on (or its declaring class for static methods). */
  Class<?> targetClass();

  /** The call's arguments. */
  @Nullable Object[] arguments();

  /** Runs the method. */
  @Nullable Object proceed() throws Throwable;
}
