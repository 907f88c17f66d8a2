package dev.locksmith.spring.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.jdbc.JdbcLockProvider;
import dev.locksmith.spring.boot.LocksmithAutoConfiguration;
import dev.locksmith.spring.boot.LocksmithFailureAnalyzer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code locksmith.url=jdbc} that cannot be served stops the start with Boot's failure analysis
 * saying what is missing: a {@code DataSource} bean, locking-jdbc on the class path, or (for a
 * named provider) a full URL.
 */
class DataSourceMissingTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DataSourceAutoConfiguration.class, LocksmithAutoConfiguration.class));

  @ParameterizedTest
  @ValueSource(strings = {"jdbc", "JDBC"}) // Boot's condition on the value ignores case
  void withoutADataSourceBean(String url) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
        .withPropertyValues("locksmith.url=" + url)
        .run(
            context ->
                assertThat(analysis(context.getStartupFailure()).getDescription())
                    .contains("locksmith.url=jdbc uses the application's DataSource bean")
                    .contains("the application defines none")
                    .contains("spring.datasource.url"));
  }

  @Test
  void withoutLockingJdbcOnTheClassPath() {
    runner
        .withClassLoader(new FilteredClassLoader(JdbcLockProvider.class))
        .withPropertyValues("locksmith.url=jdbc", "spring.datasource.url=jdbc:h2:mem:no-jdbc")
        .run(
            context ->
                assertThat(analysis(context.getStartupFailure()).getDescription())
                    .contains("locking-jdbc, which is not on the class path")
                    .contains("dev.locksmith:locksmith-jdbc"));
  }

  @Test
  void namedProviderCannotUseTheDataSource() {
    runner
        .withPropertyValues(
            "locksmith.url=mem:named-jdbc",
            "locksmith.providers.audit.url=jdbc",
            "spring.datasource.url=jdbc:h2:mem:named-jdbc")
        .run(
            context ->
                assertThat(analysis(context.getStartupFailure()).getDescription())
                    .contains("locksmith.providers.audit.url=jdbc")
                    .contains("only the default provider"));
  }

  @Test
  void fullJdbcUrlKeepsItsOwnPool() {
    runner
        .withPropertyValues(
            "locksmith.url=jdbc:h2:mem:own-pool;DB_CLOSE_DELAY=-1?table=own_pool_locks",
            "spring.datasource.url=jdbc:h2:mem:app-db")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(JdbcLockProvider.class);
              assertThat(
                      context
                          .getBean(dev.locksmith.core.Locksmith.class)
                          .providers()
                          .get("")
                          .description())
                  .contains("jdbc:h2:mem:own-pool");
            });
  }

  private static FailureAnalysis analysis(Throwable failure) {
    assertThat(failure).isNotNull();
    FailureAnalysis analysis = new LocksmithFailureAnalyzer().analyze(failure);
    assertThat(analysis).as("analysis of %s", failure).isNotNull();
    return analysis;
  }
}
