package dev.locksmith.aspectj;

import dev.locksmith.core.integration.LockedInvocation;
import java.lang.reflect.Method;
import org.aspectj.lang.ProceedingJoinPoint;
import org.jspecify.annotations.Nullable;

/** One advised method execution as the engine sees it. */
final class JoinPointInvocation implements LockedInvocation {
  private final ProceedingJoinPoint call;
  private final Method method;
  private final @Nullable Object target;
  private final Class<?> targetClass;
  private final @Nullable Object[] args;

  JoinPointInvocation(
      ProceedingJoinPoint call,
      Method method,
      @Nullable Object target,
      Class<?> targetClass,
      @Nullable Object[] args) {
    this.call = call;
    this.method = method;
    this.target = target;
    this.targetClass = targetClass;
    this.args = args;
  }

  @Override
  public Method method() {
    return method;
  }

  @Override
  public Class<?> targetClass() {
    return targetClass;
  }

  @Override
  public @Nullable Object[] arguments() {
    return args;
  }

  @Override
  public @Nullable Object proceed() throws Throwable {
    return ReentryGuard.proceed(call, method, target, args);
  }
}
