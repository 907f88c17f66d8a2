package dev.locksmith.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.spring.LockingInfrastructure;
import dev.locksmith.spring.LockingMode;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.DecoratingProxy;

/** The hints {@link LockedBeanAotProcessor} contributes for a bean with annotated methods. */
class LockedBeanAotProcessorTest {

  @Test
  void anInterfaceProxiedBeanGetsItsMethodsAndItsJdkProxy() throws NoSuchMethodException {
    RuntimeHints hints = hintsFor(Ledger.class, false);

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(Ledger.class.getMethod("post", String.class, int.class)))
        .accepts(hints);
    for (Class<?> searched : new Class<?>[] {Ledger.class, Book.class, Base.class}) {
      assertThat(
              RuntimeHintsPredicates.reflection()
                  .onType(searched)
                  .withMemberCategory(MemberCategory.INTROSPECT_DECLARED_METHODS))
          .as(searched.getName())
          .accepts(hints);
    }
    assertThat(
            RuntimeHintsPredicates.proxies()
                .forInterfaces(Book.class, SpringProxy.class, Advised.class, DecoratingProxy.class))
        .accepts(hints);
  }

  @Test
  void aMetaAnnotationIsRegisteredWithTheMethod() throws NoSuchMethodException {
    RuntimeHints hints = hintsFor(Ledger.class, false);

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(Ledger.class.getMethod("close", String.class)))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(Nightly.class)).accepts(hints);
  }

  @Test
  void classProxiesNeedNoJdkProxy() {
    RuntimeHints hints = hintsFor(Ledger.class, true);

    assertThat(hints.proxies().jdkProxyHints()).isEmpty();
    assertThat(RuntimeHintsPredicates.reflection().onType(Ledger.class)).accepts(hints);
  }

  @Test
  void aLockedInterfaceMethodsInheritedBodyIsRegistered() throws NoSuchMethodException {
    // The body comes from a superclass that does not implement the interface: the bean's class
    // declares no annotated method, and the bean got no hints.
    RuntimeHints hints = hintsFor(Payer.class, true);

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(PlainPayments.class.getMethod("pay", String.class)))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(Payments.class.getMethod("pay", String.class)))
        .accepts(hints);
  }

  @Test
  void beansWithoutAnnotatedMethodsContributeNothing() {
    DefaultListableBeanFactory factory = factory(false);
    factory.registerBeanDefinition("plain", new RootBeanDefinition(Base.class));

    assertThat(new LockedBeanAotProcessor().processAheadOfTime(RegisteredBean.of(factory, "plain")))
        .isNull();
  }

  private static RuntimeHints hintsFor(Class<?> type, boolean proxyTargetClass) {
    DefaultListableBeanFactory factory = factory(proxyTargetClass);
    factory.registerBeanDefinition("bean", new RootBeanDefinition(type));
    @Nullable BeanRegistrationAotContribution contribution =
        new LockedBeanAotProcessor().processAheadOfTime(RegisteredBean.of(factory, "bean"));
    assertThat(contribution).isNotNull();
    TestGenerationContext generation = new TestGenerationContext();
    contribution.applyTo(generation, null);
    return generation.getRuntimeHints();
  }

  private static DefaultListableBeanFactory factory(boolean proxyTargetClass) {
    DefaultListableBeanFactory factory = new DefaultListableBeanFactory();
    LockingInfrastructure.register(
        factory, LockingMode.PROXY, LockingInfrastructure.DEFAULT_ORDER, proxyTargetClass);
    return factory;
  }

  /** A lock through a composed annotation. */
  @Retention(RetentionPolicy.RUNTIME)
  @DistributedLock(name = "nightly", key = "#day")
  @interface Nightly {}

  /** The interface the proxy implements. */
  interface Book {
    /** Posts an amount. */
    void post(String account, int amount);
  }

  /** A superclass the engine searches for inherited annotations. */
  static class Base {
    /** Not locked. */
    void audit() {}
  }

  /** An interface whose method is locked. */
  public interface Payments {
    /** Pays. */
    @DistributedLock(name = "pay", key = "#account")
    void pay(String account);
  }

  /** A class with the body, not implementing the interface. */
  public static class PlainPayments {
    /** Pays, unlocked here. */
    public void pay(String account) {}
  }

  /** The bean: the interface's locked method implemented by the inherited body. */
  public static class Payer extends PlainPayments implements Payments {}

  /** A bean with locked methods behind an interface. */
  static class Ledger extends Base implements Book {
    @Override
    @DistributedLock(name = "ledger", key = "#account")
    public void post(String account, int amount) {}

    /** Closes a day. */
    @Nightly
    public void close(String day) {}
  }
}
