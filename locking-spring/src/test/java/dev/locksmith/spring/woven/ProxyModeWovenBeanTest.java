package dev.locksmith.spring.woven;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import dev.locksmith.spring.boot.LocksmithFailureAnalyzer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A bean whose class the aspect wove, in proxy mode (the default): Spring's proxy took the lock
 * through the application's engine, then the woven body took it again through the aspect's own
 * engine, built from system settings alone. That failed every call (no provider there) or, with
 * {@code LOCKSMITH_URL} set, found the lock held by the proxy: skipped under {@code SKIP}, without
 * a word. The start now fails, saying to use aspectj mode.
 */
class ProxyModeWovenBeanTest {

  /** Woven by the aspect, as every class of this package is. */
  public static class NightlyJob {
    /** A locked job. */
    @DistributedLock(name = "nightly")
    public void run() {}
  }

  @Test
  void aWovenBeanInProxyModeFailsTheStartNamingTheMode() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
        .withBean("nightlyJob", NightlyJob.class)
        .withPropertyValues("locksmith.url=mem:proxy-mode-woven")
        .run(
            context -> {
              assertThat(context).hasFailed();
              FailureAnalysis analysis =
                  new LocksmithFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis).isNotNull();
              assertThat(analysis.getDescription())
                  .contains("nightlyJob")
                  .contains(NightlyJob.class.getName() + ".run()")
                  .contains("woven")
                  .contains("locksmith.mode=aspectj");
            });
  }
}
