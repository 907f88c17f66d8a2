package dev.locksmith.spring;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;

/**
 * Advises every method that carries {@code @DistributedLock} (directly, through a meta-annotation,
 * or inherited from the method it overrides or implements: {@code AnnotatedMethods}), or whose
 * inherited body implements a locked interface method for the bean's class, with a {@link
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

  /**
   * Matches methods whose most specific implementation or declaration is annotated, or that
   * implement a locked interface method for the target class with a body inherited from a class
   * that does not implement the interface (a class-based proxy sees only that body).
   */
  private static final class AnnotatedMethodPointcut extends StaticMethodMatcherPointcut {
    @Override
    public boolean matches(Method method, Class<?> targetClass) {
      return LockInterceptor.governing(method, targetClass) != null;
    }
  }
}
