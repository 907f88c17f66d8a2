package dev.locksmith.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.PropertySourcePropertyResolver;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Named providers' URLs as Micronaut's environment gives them. */
class ProviderSettingsTest {

  @Test
  void environmentVariablesNameProvidersOfOneOrMoreWords() {
    PropertySourcePropertyResolver env =
        new PropertySourcePropertyResolver(
            PropertySource.of(
                "env",
                Map.of(
                    "LOCKSMITH_PROVIDERS_BILLING_EU_URL", "mem:billing-eu",
                    "LOCKSMITH_PROVIDERS_BILLING_URL", "mem:billing",
                    "LOCKSMITH_PROVIDERS_SHORT_URL_CACHE_URL", "mem:cache",
                    "LOCKSMITH_PROVIDERS_REPORTS_URL", "mem:reports"),
                PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE));
    assertThat(ProviderSettings.read(env).named())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "billing-eu", "mem:billing-eu",
                "billing", "mem:billing",
                "short-url-cache", "mem:cache",
                "reports", "mem:reports"));
  }

  @Test
  void namesAreInKebabCaseAsMicronautGivesThem() {
    PropertySourcePropertyResolver yaml =
        new PropertySourcePropertyResolver(
            PropertySource.of(
                "yaml",
                Map.of(
                    "locksmith.providers.myReports.url", "mem:reports",
                    "locksmith.providers.billing.eu.url", "mem:billing",
                    "locksmith.providers.orders.url", "mem:orders")));
    assertThat(ProviderSettings.read(yaml).named())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "my-reports", "mem:reports", "billing-eu", "mem:billing", "orders", "mem:orders"));
  }

  @Test
  void aProviderWithAnEmptyUrlIsNamedInTheError() {
    PropertySourcePropertyResolver yaml =
        new PropertySourcePropertyResolver(
            PropertySource.of("yaml", Map.of("locksmith.providers.orders.url", " ")));
    assertThatThrownBy(() -> ProviderSettings.read(yaml))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "locksmith.providers.orders.url is missing: provider 'orders' is configured but has no"
                + " URL");
  }

  @Test
  void aKeyInPlaceOfTheUrlIsNamedInTheError() {
    PropertySourcePropertyResolver yaml =
        new PropertySourcePropertyResolver(
            PropertySource.of("yaml", Map.of("locksmith.providers.orders.pool-size", "4")));
    assertThatThrownBy(() -> ProviderSettings.read(yaml))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith("locksmith.providers.orders.pool-size is not a setting")
        .hasMessageContaining("takes only url");
  }

  @Test
  void aKeyBesideTheUrlIsNamedInTheError() {
    PropertySourcePropertyResolver yaml =
        new PropertySourcePropertyResolver(
            PropertySource.of(
                "yaml",
                Map.of(
                    "locksmith.providers.orders.url", "mem:orders",
                    "locksmith.providers.orders.prefix", "orders")));
    assertThatThrownBy(() -> ProviderSettings.read(yaml))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith("locksmith.providers.orders.prefix is not a setting")
        .hasMessageContaining("URL parameters");
  }
}
