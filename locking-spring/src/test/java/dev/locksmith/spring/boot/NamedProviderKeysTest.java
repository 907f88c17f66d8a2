package dev.locksmith.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Locksmith;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A named provider takes one setting, {@code url}: any other key under {@code
 * locksmith.providers.<name>} stops the start naming it, where it was ignored (a typo such as
 * {@code uri} left the provider out, and {@code prefix} beside the URL did nothing).
 */
class NamedProviderKeysTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
          .withPropertyValues("locksmith.url=mem:named-keys");

  @Test
  void aNamedProviderWithItsUrlStarts() {
    runner
        .withPropertyValues("locksmith.providers.orders.url=mem:orders")
        .run(context -> assertStartedWith(context, "orders", "mem:orders"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"URL", "Url", "u-r-l"})
  void theUrlIsReadUnderTheNamesBootBindsToIt(String key) {
    runner
        .withPropertyValues("locksmith.providers.orders." + key + "=mem:orders")
        .run(context -> assertStartedWith(context, "orders", "mem:orders"));
  }

  @Test
  void anEnvironmentVariableNamesAProviderOfOneWord() {
    runner
        .withInitializer(environment(Map.of("LOCKSMITH_PROVIDERS_AUDIT_URL", "mem:audit")))
        .run(context -> assertStartedWith(context, "audit", "mem:audit"));
  }

  @Test
  void aKeyBesideTheUrlIsNamed() {
    runner
        .withPropertyValues(
            "locksmith.providers.orders.url=mem:orders", "locksmith.providers.orders.prefix=x")
        .run(
            context ->
                assertThat(analysis(context.getStartupFailure()).getDescription())
                    .contains("locksmith.providers.orders.prefix")
                    .contains("takes only url")
                    .contains("URL parameters"));
  }

  @Test
  void aMisspeltUrlIsNamed() {
    runner
        .withPropertyValues("locksmith.providers.orders.uri=mem:orders")
        .run(
            context ->
                assertThat(analysis(context.getStartupFailure()).getDescription())
                    .contains("locksmith.providers.orders.uri")
                    .contains("takes only url"));
  }

  @Test
  void anEnvironmentVariableForANameOfTwoWordsIsExplained() {
    runner
        .withInitializer(environment(Map.of("LOCKSMITH_PROVIDERS_BILLING_EU_URL", "mem:billing")))
        .run(
            context ->
                assertThat(analysis(context.getStartupFailure()).getDescription())
                    .contains("locksmith.providers.billing.eu.url")
                    .contains("environment variable"));
  }

  /**
   * Adds variables read as the process environment is (the source's name selects Boot's mapping of
   * variable names).
   */
  private static ApplicationContextInitializer<ConfigurableApplicationContext> environment(
      Map<String, Object> variables) {
    return context ->
        context
            .getEnvironment()
            .getPropertySources()
            .addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", variables));
  }

  private static void assertStartedWith(
      AssertableApplicationContext context, String provider, String url) {
    assertThat(context).hasNotFailed();
    assertThat(context.getBean(Locksmith.class).providers().get(provider).description())
        .contains(url);
  }

  private static FailureAnalysis analysis(Throwable failure) {
    assertThat(failure).isNotNull();
    FailureAnalysis analysis = new LocksmithFailureAnalyzer().analyze(failure);
    assertThat(analysis).as("analysis of %s", failure).isNotNull();
    return analysis;
  }
}
