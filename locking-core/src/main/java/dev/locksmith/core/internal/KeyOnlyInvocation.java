package dev.locksmith.core.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/** A call handed to {@code Locksmith.prepare} for its lock only: it never proceeds. */
record KeyOnlyInvocation(Method method, Class<?> targetClass, @Nullable Object[] arguments)
    implements LockedInvocation {

  @Override
  public @Nullable Object proceed() {
    throw new UnsupportedOperationException("prepared calls do not proceed");
  }
}
