package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locks;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A locked interface method whose body a bean inherits from a class that does not implement the
 * interface: a class-based proxy (Spring Boot's default) sees only that body, which neither carries
 * nor inherits the annotation. It ran unlocked, and start-up checked nothing.
 */
class InheritedBodyTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withPropertyValues("locksmith.url=mem:inherited-body");

  /** The interface that locks. */
  public interface Payments {
    @DistributedLock(name = "pay", onBusy = OnBusy.FAIL)
    String pay(long cents);
  }

  /** The body, in a class that knows nothing of the interface. */
  public static class PlainPayments {
    public String pay(long cents) {
      return Locks.currentIfAny().map(Lease::name).orElse("unlocked");
    }
  }

  /** Implements the interface with the inherited body. */
  public static class Payer extends PlainPayments implements Payments {}

  @ParameterizedTest(name = "spring.aop.proxy-target-class={0}")
  @ValueSource(booleans = {true, false})
  void theInheritedBodyRunsUnderTheInterfaceMethodsLock(boolean proxyTargetClass) {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass)
        .withBean("payer", Payer.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Payments.class).pay(1)).isEqualTo("pay");
            });
  }

  /** The interface whose annotation is wrong. */
  public interface BadPayments {
    @DistributedLock(name = "pay", ttl = "ten seconds")
    String pay(long cents);
  }

  /** Implements it with the inherited body. */
  public static class BadPayer extends PlainPayments implements BadPayments {}

  @ParameterizedTest(name = "spring.aop.proxy-target-class={0}")
  @ValueSource(booleans = {true, false})
  void aMistakeInTheInterfaceMethodsAnnotationStopsTheContext(boolean proxyTargetClass) {
    runner
        .withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass)
        .withBean("badPayer", BadPayer.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .isInstanceOf(LockConfigurationException.class)
                  .hasMessageContaining("Bean 'badPayer'")
                  .hasMessageContaining("attribute ttl");
            });
  }

  /** A final body, which a class-based proxy cannot override. */
  public static class FinalPlainPayments {
    public final String pay(long cents) {
      return "unlocked";
    }
  }

  /** Implements the locking interface with the final inherited body. */
  public static class FinalPayer extends FinalPlainPayments implements Payments {}

  @Test
  void aFinalInheritedBodyStopsTheContext() {
    runner
        .withBean("finalPayer", FinalPayer.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .isInstanceOf(LockConfigurationException.class)
                  .hasMessageContaining("Bean 'finalPayer'")
                  .hasMessageContaining(FinalPlainPayments.class.getName() + ".pay(long)")
                  .hasMessageContaining("would run without a lock");
            });
  }
}
