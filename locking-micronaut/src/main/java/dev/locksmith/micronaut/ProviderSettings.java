package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import io.micronaut.core.value.PropertyResolver;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The provider URLs of the Micronaut configuration: {@code locksmith.url} for the default provider
 * and {@code locksmith.providers.<name>.url} for named ones (environment variables {@code
 * LOCKSMITH_URL} and {@code LOCKSMITH_PROVIDERS_<NAME>_URL} map onto them as usual).
 *
 * @param defaultUrl the default provider's URL, or {@code null}
 * @param named the named providers' URLs by name
 */
record ProviderSettings(@Nullable String defaultUrl, Map<String, String> named) {
  static final String URL = "locksmith.url";
  static final String PROVIDERS = "locksmith.providers";

  /**
   * Reads the settings.
   *
   * @throws LockConfigurationException for a named provider without a URL
   */
  static ProviderSettings read(PropertyResolver properties) {
    String defaultUrl = properties.get(URL, String.class).map(String::strip).orElse(null);
    Map<String, String> named = new TreeMap<>();
    for (String name : properties.getPropertyEntries(PROVIDERS)) {
      String key = PROVIDERS + "." + name + ".url";
      String url = properties.get(key, String.class).map(String::strip).orElse("");
      if (url.isEmpty()) {
        throw new LockConfigurationException(
            key + " is missing: provider '" + name + "' is configured but has no URL");
      }
      named.put(name, url);
    }
    return new ProviderSettings(
        defaultUrl == null || defaultUrl.isEmpty() ? null : defaultUrl, named);
  }
}
