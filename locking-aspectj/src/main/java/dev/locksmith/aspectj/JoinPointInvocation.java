package dev.locksmith.aspectj;

import dev.locksmith.core.internal.LockedInvocation;
import java.lang.reflect.Method;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;

/** One advised method execution as the engine sees it. */
record JoinPointInvocation(
    ProceedingJoinPoint call,
    Method method,
    @Nullable Object target,
    Class<?> targetClass,
    @Nullable Object[] arguments)
    implements LockedInvocation {

  @Override
  public @Nullable Object proceed() throws Throwable {
    return ReentryGuard.proceed(call, method, target, arguments);
  }
}
