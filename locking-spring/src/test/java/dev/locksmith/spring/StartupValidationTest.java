package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Each mistake in a {@code @DistributedLock} stops the context, naming bean, method, attribute. */
class StartupValidationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withPropertyValues("locksmith.url=mem:validation");

  private void assertFails(Class<?> beanType, String beanName, String... fragments) {
    runner
        .withBean(beanName, beanType)
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable failure = context.getStartupFailure();
              assertThat(failure).isInstanceOf(LockConfigurationException.class);
              assertThat(failure.getMessage())
                  .contains("Bean '" + beanName + "'", beanType.getName() + ".run(")
                  .contains(fragments);
            });
  }

  @Test
  void badKeyExpression() {
    assertFails(BadKey.class, "badKey", "attribute key");
  }

  @Test
  void badDuration() {
    assertFails(BadTtl.class, "badTtl", "attribute ttl", "ten seconds");
  }

  @Test
  void unknownProvider() {
    assertFails(UnknownProvider.class, "unknownProvider", "attribute provider", "'nope'");
  }

  @Test
  void unresolvablePlaceholder() {
    assertFails(MissingPlaceholder.class, "missingPlaceholder", "attribute name", "no.such.name");
  }

  @Test
  void skipOnPrimitive() {
    assertFails(SkipOnPrimitive.class, "skipOnPrimitive", "attribute onBusy");
  }

  @Test
  void finalMethodThatAProxyCannotInterceptIsRefused() {
    assertFails(FinalMethod.class, "finalMethod", "would run without a lock", "final");
  }

  @Test
  void goodBeansStart() {
    runner.withBean("good", Good.class).run(context -> assertThat(context).hasNotFailed());
  }

  /** Invalid SpEL. */
  public static class FinalMethod {
    @dev.locksmith.annotation.DistributedLock
    public final void run() {}
  }

  public static class BadKey {
    @DistributedLock(key = "#id +")
    public void run(String id) {}
  }

  /** Invalid duration. */
  public static class BadTtl {
    @DistributedLock(ttl = "ten seconds")
    public void run() {}
  }

  /** Provider name not configured. */
  public static class UnknownProvider {
    @DistributedLock(provider = "nope")
    public void run() {}
  }

  /** Placeholder without a value. */
  public static class MissingPlaceholder {
    @DistributedLock(name = "${no.such.name}")
    public void run() {}
  }

  /** SKIP has nothing to return for an int. */
  public static class SkipOnPrimitive {
    @DistributedLock(onBusy = OnBusy.SKIP)
    public int run() {
      return 1;
    }
  }

  /** Valid. */
  public static class Good {
    @DistributedLock(key = "#id", ttl = "5s")
    public void run(String id) {}
  }
}
