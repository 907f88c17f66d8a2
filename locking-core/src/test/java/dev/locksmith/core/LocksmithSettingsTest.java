package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading {@code locksmith.*} settings: what a named provider takes, and what it refuses. */
class LocksmithSettingsTest {

  @Test
  void namedProvidersAreReadByTheirUrls() {
    LocksmithSettings settings =
        LocksmithSettings.from(
            Map.of(
                "locksmith.url", " mem:default ",
                "locksmith.providers.orders.url", "mem:orders",
                "locksmith.providers.billing-eu.url", "mem:billing"));

    assertThat(settings.defaultUrl()).isEqualTo("mem:default");
    assertThat(settings.providerUrls())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("orders", "mem:orders", "billing-eu", "mem:billing"));
  }

  @Test
  void aKeyBesideANamedProvidersUrlIsRefusedByName() {
    assertThatThrownBy(
            () ->
                LocksmithSettings.from(
                    Map.of(
                        "locksmith.providers.orders.url", "mem:orders",
                        "locksmith.providers.orders.prefix", "x")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith("locksmith.providers.orders.prefix is not a setting")
        .hasMessageContaining("takes only url")
        .hasMessageContaining("URL parameters");
  }

  @Test
  void aMisspeltUrlIsRefusedByName() {
    assertThatThrownBy(
            () -> LocksmithSettings.from(Map.of("locksmith.providers.orders.uri", "mem:orders")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith("locksmith.providers.orders.uri is not a setting");
  }

  @Test
  void aNameOfTwoLevelsIsToldToJoinItsWords() {
    assertThatThrownBy(
            () ->
                LocksmithSettings.from(Map.of("locksmith.providers.billing.eu.url", "mem:billing")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith("locksmith.providers.billing.eu.url is not a setting")
        .hasMessageContaining("locksmith.providers.billing-eu.url");
  }

  @Test
  void aProviderWithoutANameIsRefused() {
    assertThatThrownBy(() -> LocksmithSettings.from(Map.of("locksmith.providers", "mem:x")))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith("locksmith.providers is not a setting");
  }
}
