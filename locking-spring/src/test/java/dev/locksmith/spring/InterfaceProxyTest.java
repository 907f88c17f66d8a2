package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locks;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.support.GenericApplicationContext;

/**
 * A {@code final} locked method that implements an interface method: a JDK interface proxy ({@code
 * spring.aop.proxy-target-class=false}, or {@code @EnableDistributedLocking} without Spring Boot's
 * AOP auto-configuration) reaches it through the interface and locks it, so start-up accepts it; a
 * class-based proxy cannot override it, so start-up refuses it. Start-up refused both.
 */
class InterfaceProxyTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withPropertyValues("locksmith.url=mem:interface-proxy");

  /** The interface callers use; it carries no annotation. */
  public interface Payments {
    String pay(long cents);
  }

  /** Locks its final implementation of the interface method. */
  public static class FinalPayments implements Payments {
    @DistributedLock(name = "pay", onBusy = OnBusy.FAIL)
    @Override
    public final String pay(long cents) {
      return Locks.currentIfAny().map(Lease::name).orElse("unlocked");
    }
  }

  /** Locks a final method that no interface declares, beside one that is. */
  public static class FinalOffTheInterface implements Payments {
    @Override
    public String pay(long cents) {
      return "unlocked";
    }

    @DistributedLock(name = "refund")
    public final void refund() {}
  }

  @Test
  void aFinalMethodReachedThroughAnInterfaceProxyIsLocked() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withBean("payments", FinalPayments.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Payments payments = context.getBean(Payments.class);
              assertThat(AopUtils.isJdkDynamicProxy(payments)).isTrue();
              assertThat(payments.pay(1)).isEqualTo("pay");
            });
  }

  /** The same bean made after start-up, its class unknown until then. */
  @Configuration(proxyBeanMethods = false)
  public static class LazyPayments {
    @Bean
    @Lazy
    Payments lazyPayments() {
      return new FinalPayments();
    }
  }

  @Test
  void aFinalMethodReachedThroughAnInterfaceProxyIsLockedInABeanMadeLater() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withUserConfiguration(LazyPayments.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Payments payments = context.getBean("lazyPayments", Payments.class);
              assertThat(AopUtils.isJdkDynamicProxy(payments)).isTrue();
              assertThat(payments.pay(1)).isEqualTo("pay");
            });
  }

  @Test
  void aFinalMethodUnderAClassProxyStopsTheContext() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=true")
        .withBean("payments", FinalPayments.class)
        .run(
            context ->
                assertRefused(context, "payments", FinalPayments.class.getName() + ".pay(long)"));
  }

  @Test
  void aFinalMethodNoProxiedInterfaceDeclaresStopsTheContext() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withBean("refunds", FinalOffTheInterface.class)
        .run(
            context ->
                assertRefused(
                    context, "refunds", FinalOffTheInterface.class.getName() + ".refund()"));
  }

  @Test
  void aSecondBeanOfTheClassKeptToAClassProxyStopsTheContext() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withInitializer(
            context -> {
              GenericApplicationContext generic = (GenericApplicationContext) context;
              generic.registerBeanDefinition(
                  "payments", new RootBeanDefinition(FinalPayments.class));
              RootBeanDefinition kept = new RootBeanDefinition(FinalPayments.class);
              kept.setAttribute(AutoProxyUtils.PRESERVE_TARGET_CLASS_ATTRIBUTE, true);
              generic.registerBeanDefinition("classPayments", kept);
            })
        .run(
            context ->
                assertRefused(
                    context, "classPayments", FinalPayments.class.getName() + ".pay(long)"));
  }

  /** Makes Spring's auto-proxy creator optimize, which subclasses every class. */
  @Configuration(proxyBeanMethods = false)
  public static class OptimizingProxies {
    @Bean
    static BeanFactoryPostProcessor optimize() {
      return factory ->
          factory
              .getBeanDefinition(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)
              .getPropertyValues()
              .add("optimize", true);
    }
  }

  @Test
  void aFinalMethodUnderAnOptimizingProxyCreatorStopsTheContext() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withUserConfiguration(OptimizingProxies.class)
        .withBean("payments", FinalPayments.class)
        .run(
            context ->
                assertRefused(context, "payments", FinalPayments.class.getName() + ".pay(long)"));
  }

  /** A generic interface: the class's method implements it through a bridge. */
  public interface Handler<T> {
    String handle(T item);
  }

  /** Locks its final, typed implementation. */
  public static class FinalHandler implements Handler<String> {
    @DistributedLock(name = "handle", onBusy = OnBusy.FAIL)
    @Override
    public final String handle(String item) {
      return Locks.currentIfAny().map(Lease::name).orElse("unlocked");
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void aFinalMethodImplementingAGenericInterfaceMethodIsLocked() {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withBean("handler", FinalHandler.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Handler<String> handler = context.getBean("handler", Handler.class);
              assertThat(AopUtils.isJdkDynamicProxy(handler)).isTrue();
              assertThat(handler.handle("x")).isEqualTo("handle");
            });
  }

  /** Start-up failed, naming the bean, the method fragments given, and the reason. */
  private static void assertRefused(
      AssertableApplicationContext context, String bean, String... fragments) {
    assertThat(context).hasFailed();
    assertThat(context.getStartupFailure())
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Bean '" + bean + "'")
        .hasMessageContaining("would run without a lock")
        .message()
        .contains(fragments);
  }
}
