package dev.locksmith.spring;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.ReactiveCall;
import dev.locksmith.core.internal.ReactiveResults;
import dev.locksmith.core.internal.ReactiveReturns;
import java.lang.reflect.Method;
import org.springframework.aop.ProxyMethodInvocation;

/**
 * Hands a method returning {@code Mono} or {@code Flux} to core's {@link ReactiveResults}, which
 * holds its lock from subscription to the terminal signal or cancellation. Each subscription
 * proceeds on its own copy of the intercepted call, so that it runs the method anew under its own
 * lease.
 */
final class ReactiveLocking {
  private ReactiveLocking() {}

  static Object invoke(
      Locksmith locksmith, Method method, Class<?> targetClass, ProxyMethodInvocation invocation) {
    return ReactiveReturns.hold(
        method.getReturnType(),
        () -> {
          ProxyMethodInvocation copy = (ProxyMethodInvocation) invocation.invocableClone();
          return ReactiveCall.of(
              locksmith, method, targetClass, copy.getArguments(), copy::proceed);
        });
  }
}
