package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LocksmithSettings;
import io.micronaut.core.value.PropertyResolver;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The provider URLs of the Micronaut configuration: {@code locksmith.url} for the default provider
 * and {@code locksmith.providers.<name>.url} for named ones (environment variables {@code
 * LOCKSMITH_URL} and {@code LOCKSMITH_PROVIDERS_<NAME>_URL} map onto them as usual). Names are in
 * Micronaut's kebab-case: {@code myReports} in YAML and {@code LOCKSMITH_PROVIDERS_MY_REPORTS_URL}
 * both name provider {@code my-reports}.
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
   * @throws LockConfigurationException for a named provider without a URL, or a key under a named
   *     provider other than its URL
   */
  static ProviderSettings read(PropertyResolver properties) {
    String defaultUrl = properties.get(URL, String.class).map(String::strip).orElse(null);
    Map<String, String> named = new TreeMap<>();
    for (String name : properties.getPropertyEntries(PROVIDERS)) {
      if (!collect(properties, PROVIDERS + "." + name, name, named)) {
        throw new LockConfigurationException(
            PROVIDERS
                + "."
                + name
                + ".url is missing: provider '"
                + name
                + "' is configured but has no URL");
      }
    }
    return new ProviderSettings(
        defaultUrl == null || defaultUrl.isEmpty() ? null : defaultUrl, named);
  }

  /**
   * Adds the URL of provider {@code name} at {@code path}, and of the providers whose names
   * continue it: an environment variable's words arrive as levels ({@code
   * LOCKSMITH_PROVIDERS_BILLING_EU_URL} as {@code billing}, then {@code eu}) and name provider
   * {@code billing-eu}, beside a provider {@code billing} of its own.
   *
   * @return whether a URL was found
   */
  private static boolean collect(
      PropertyResolver properties, String path, String name, Map<String, String> named) {
    boolean found = false;
    String url = properties.get(path + ".url", String.class).map(String::strip).orElse("");
    if (!url.isEmpty()) {
      named.put(name, url);
      found = true;
    }
    for (String word : properties.getPropertyEntries(path)) {
      String next = path + "." + word;
      if (properties.getPropertyEntries(next).isEmpty()) {
        if (word.equals("url")) {
          continue; // this provider's URL, read above
        }
        // A key beside a URL or in place of one, which core refuses, naming it.
        LocksmithSettings.from(Map.of(next, ""));
      }
      found |= collect(properties, next, name + "-" + word, named);
    }
    return found;
  }
}
