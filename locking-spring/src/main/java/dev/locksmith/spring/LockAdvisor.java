package dev.locksmith.spring;

import dev.locksmith.core.internal.AnnotatedMethods;
import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;

/**
 * Advises every method that carries {@code @DistributedLock} (directly, through a meta-annotation,
 * or inherited from the method it overrides or implements: {@code AnnotatedMethods}) with a {@link
 * LockInterceptor}. The engine is looked up on the first call, so creating the advisor early
 * creates nothing else.
 */
final class LockAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {
  private static final long serialVersionUID = 1L;

  private final Pointcut pointcut = new AnnotatedMethodPointcut();
  private final LockInterceptor interceptor = new LockInterceptor();

  LockAdvisor(int order) {
    setOrder(order);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    interceptor.setBeanFactory(beanFactory);
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  @Override
  public Advice getAdvice() {
    return interceptor;
  }

  /** Matches methods whose most specific implementation or declaration is annotated. */
  private static final class AnnotatedMethodPointcut extends StaticMethodMatcherPointcut {
    @Override
    public boolean matches(Method method, Class<?> targetClass) {
      return AnnotatedMethods.isAnnotated(method)
          || AnnotatedMethods.isAnnotated(AopUtils.getMostSpecificMethod(method, targetClass));
    }
  }
}
