package dev.locksmith.spring;

import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.internal.ReactiveReturns;
import java.lang.reflect.Method;
import java.util.Map;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Turns an intercepted call into one engine call: {@link Locksmith#invoke} for plain and {@code
 * CompletionStage} results, core's reactive handler for {@code Mono} and {@code Flux} ({@link
 * ReactiveLocking}).
 */
final class LockInterceptor implements MethodInterceptor {
  private static final boolean TX_PRESENT =
      ClassUtils.isPresent(
          "org.springframework.transaction.support.TransactionSynchronizationManager",
          LockInterceptor.class.getClassLoader());

  // Per class, once: the rare inherited body is looked up at every call of it.
  private static final ClassValue<Map<Method, Method>> INHERITED_BODIES =
      new ClassValue<>() {
        @Override
        protected Map<Method, Method> computeValue(Class<?> type) {
          return AnnotatedMethods.inheritedBodies(type);
        }
      };

  private @Nullable SingletonSupplier<Locksmith> locksmith;

  void setBeanFactory(BeanFactory beanFactory) {
    this.locksmith = SingletonSupplier.of(() -> beanFactory.getBean(Locksmith.class));
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    if (locksmith == null) {
      throw new IllegalStateException("The lock advisor has no bean factory");
    }
    Locksmith engine = locksmith.obtain();
    Object target = invocation.getThis();
    Class<?> targetClass =
        target != null
            ? AopUtils.getTargetClass(target)
            : invocation.getMethod().getDeclaringClass();
    Method governing = governing(invocation.getMethod(), targetClass);
    Method annotated = governing != null ? governing : invocation.getMethod();
    if (ReactiveReturns.isMonoOrFlux(annotated.getReturnType())) {
      return ReactiveLocking.invoke(
          engine, annotated, targetClass, (ProxyMethodInvocation) invocation);
    }
    LockedInvocation call = new Call(annotated, targetClass, invocation);
    if (TX_PRESENT) {
      return TransactionalReleaseDeferral.callJoined(
          TransactionalReleaseDeferral.transactionOpen(), () -> engine.invoke(call));
    }
    return engine.invoke(call);
  }

  /**
   * The method whose {@code @DistributedLock} governs a call of {@code method} on {@code
   * targetClass}, or {@code null}: its most specific implementation when that is annotated, else
   * the method itself (an interface method under a JDK proxy), else the locked interface method
   * that an inherited body implements for the class (a class-based proxy sees only that body).
   */
  static @Nullable Method governing(Method method, Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    if (AnnotatedMethods.isAnnotated(specific)) {
      return specific;
    }
    if (method != specific && AnnotatedMethods.isAnnotated(method)) {
      return method;
    }
    if (specific.getDeclaringClass().isInterface() || specific.getDeclaringClass() == targetClass) {
      return null;
    }
    return INHERITED_BODIES.get(targetClass).get(specific);
  }

  /** The intercepted call as the engine sees it. */
  private record Call(Method method, Class<?> targetClass, MethodInvocation invocation)
      implements LockedInvocation {
    @Override
    public @Nullable Object[] arguments() {
      return invocation.getArguments();
    }

    @Override
    public @Nullable Object proceed() throws Throwable {
      return invocation.proceed();
    }
  }
}
