package dev.locksmith.spring.boot;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LocksmithSettings;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.Environment;

/**
 * The keys under {@code locksmith.providers}, as Boot's relaxed binding reads them (an environment
 * variable's words as levels). Binding to {@link LocksmithProperties.Provider} keeps only {@code
 * url} and drops any other key, so this reads them all and lets {@link LocksmithSettings} refuse
 * what a named provider does not take.
 */
final class NamedProviderKeys {
  private static final String PROVIDERS = "locksmith.providers";
  private static final ConfigurationPropertyName URL = ConfigurationPropertyName.of("url");

  private NamedProviderKeys() {}

  /**
   * Fails on a key under a named provider other than its {@code url}.
   *
   * @throws LockConfigurationException naming the key
   */
  static void check(Environment environment) {
    Map<String, String> flat = new TreeMap<>();
    Binder.get(environment)
        .bind(PROVIDERS, Bindable.mapOf(String.class, Object.class))
        .ifBound(providers -> flatten(PROVIDERS, providers, flat));
    LocksmithSettings.from(flat);
  }

  private static void flatten(String path, Object value, Map<String, String> flat) {
    if (value instanceof Map<?, ?> map) {
      map.forEach((key, nested) -> flatten(path + "." + leaf(key, nested), nested, flat));
    } else {
      flat.put(path, String.valueOf(value));
    }
  }

  /** A key as Boot binds it to a property: {@code URL} and {@code u-r-l} are {@code url}. */
  private static String leaf(Object key, Object value) {
    String name = String.valueOf(key);
    return !(value instanceof Map) && URL.equals(ConfigurationPropertyName.adapt(name, '.'))
        ? "url"
        : name;
  }
}
