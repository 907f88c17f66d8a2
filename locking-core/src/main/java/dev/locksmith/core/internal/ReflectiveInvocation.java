package dev.locksmith.core.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/** A call that proceeds by reflection; see {@link LockedInvocation#reflective}. */
final class ReflectiveInvocation implements LockedInvocation {
  private final Object target;
  private final Method method;
  private final @Nullable Object[] arguments;

  ReflectiveInvocation(Object target, Method method, @Nullable Object[] arguments) {
    this.target = target;
    this.method = method;
    this.arguments = arguments;
  }

  @Override
  public Method method() {
    return method;
  }

  @Override
  public Class<?> targetClass() {
    return target.getClass();
  }

  @Override
  public @Nullable Object[] arguments() {
    return arguments;
  }

  @Override
  public @Nullable Object proceed() throws Throwable {
    try {
      return method.invoke(target, arguments);
    } catch (InvocationTargetException e) {
      Throwable thrown = e.getCause();
      throw thrown != null ? thrown : e;
    }
  }
}
