package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code locksmith.mode=aspectj} without {@code locking-aspectj}: no class can be woven, so every
 * locked method would run unlocked. It started with a warning; a bean with locked methods now stops
 * the start-up, as a class the weaver missed does.
 */
class AspectJModeWithoutAspectTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withClassLoader(new FilteredClassLoader("dev.locksmith.aspectj"))
          .withPropertyValues("locksmith.url=mem:no-aspect", "locksmith.mode=aspectj");

  /** A bean with a locked method. */
  public static class Nightly {
    @DistributedLock(name = "nightly")
    public void run() {}
  }

  @Test
  void aBeanWithLockedMethodsStopsTheStartUp() {
    runner
        .withBean("nightly", Nightly.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .isInstanceOf(LockConfigurationException.class)
                  .hasMessageContaining("Bean 'nightly'")
                  .hasMessageContaining(Nightly.class.getName() + ".run()")
                  .hasMessageContaining("would run without a lock")
                  .hasMessageContaining("locksmith-aspectj");
            });
  }

  @Test
  void withoutLockedBeansTheContextStarts() {
    runner.run(context -> assertThat(context).hasNotFailed());
  }
}
