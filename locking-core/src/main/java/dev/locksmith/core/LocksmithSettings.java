package dev.locksmith.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Provider settings outside a DI framework: {@code locksmith.url} for the default provider, {@code
 * locksmith.providers.<name>.url} for named ones, and {@code
 * locksmith.require-providers-at-startup} ({@code true} or {@code false}, default {@code false}).
 * {@link #load()} reads system properties first, then environment variables ({@code LOCKSMITH_URL},
 * {@code LOCKSMITH_PROVIDERS_<NAME>_URL}, {@code LOCKSMITH_REQUIRE_PROVIDERS_AT_STARTUP}), then
 * {@code locksmith.properties} on the class path.
 *
 * @param defaultUrl the default provider's URL, or {@code null}
 * @param providerUrls the named providers' URLs
 * @param requireProvidersAtStartup whether the engine's start fails when a provider does not answer
 *     ({@link LocksmithBuilder#requireProvidersAtStartup(boolean)})
 */
public record LocksmithSettings(
    @Nullable String defaultUrl,
    Map<String, String> providerUrls,
    boolean requireProvidersAtStartup) {
  /** The setting that makes the engine's start fail when a provider does not answer. */
  public static final String REQUIRE_PROVIDERS_AT_STARTUP =
      "locksmith.require-providers-at-startup";

  private static final String PROVIDERS = "locksmith.providers";
  private static final Pattern NAMED = Pattern.compile("locksmith\\.providers\\.([^.]+)\\.url");
  private static final Pattern NAMED_ENV = Pattern.compile("LOCKSMITH_PROVIDERS_(.+)_URL");

  /**
   * Copies the named URLs.
   *
   * @param defaultUrl see {@link #defaultUrl()}
   * @param providerUrls see {@link #providerUrls()}
   * @param requireProvidersAtStartup see {@link #requireProvidersAtStartup()}
   */
  public LocksmithSettings {
    providerUrls = Collections.unmodifiableMap(new TreeMap<>(providerUrls));
  }

  /**
   * Settings of provider URLs only; providers are not required at start-up.
   *
   * @param defaultUrl see {@link #defaultUrl()}
   * @param providerUrls see {@link #providerUrls()}
   */
  public LocksmithSettings(@Nullable String defaultUrl, Map<String, String> providerUrls) {
    this(defaultUrl, providerUrls, false);
  }

  /**
   * Reads system properties, environment variables and {@code locksmith.properties}.
   *
   * @return the settings
   */
  public static LocksmithSettings load() {
    Map<String, String> merged = new TreeMap<>(fromClasspath());
    System.getenv()
        .forEach(
            (name, value) -> propertyForVariable(name).ifPresent(key -> merged.put(key, value)));
    System.getProperties()
        .forEach((name, value) -> merged.put(String.valueOf(name), String.valueOf(value)));
    return from(merged);
  }

  /**
   * The setting an environment variable stands for: {@code LOCKSMITH_URL} for {@code
   * locksmith.url}, {@code LOCKSMITH_PROVIDERS_<NAME>_URL} for {@code
   * locksmith.providers.<name>.url}, {@code LOCKSMITH_REQUIRE_PROVIDERS_AT_STARTUP} for {@code
   * locksmith.require-providers-at-startup}; for integrations that read their own environment.
   *
   * @param variable an environment variable's name
   * @return the property name, or empty when the variable is not one of these
   */
  public static Optional<String> propertyForVariable(String variable) {
    if (variable.equals("LOCKSMITH_URL")) {
      return Optional.of("locksmith.url");
    }
    if (variable.equals("LOCKSMITH_REQUIRE_PROVIDERS_AT_STARTUP")) {
      return Optional.of(REQUIRE_PROVIDERS_AT_STARTUP);
    }
    Matcher m = NAMED_ENV.matcher(variable);
    return m.matches()
        ? Optional.of("locksmith.providers." + m.group(1).toLowerCase(Locale.ROOT) + ".url")
        : Optional.empty();
  }

  /**
   * Reads the {@code locksmith.*} entries of flat properties.
   *
   * @param properties flat properties, such as {@code locksmith.url}
   * @return the settings
   * @throws LockConfigurationException when {@code locksmith.require-providers-at-startup} is
   *     neither {@code true} nor {@code false}, or a key under {@code locksmith.providers} is not a
   *     named provider's {@code url}
   */
  public static LocksmithSettings from(Map<String, String> properties) {
    String defaultUrl = properties.get("locksmith.url");
    Map<String, String> named = new TreeMap<>();
    properties.forEach(
        (name, value) -> {
          Matcher m = NAMED.matcher(name);
          if (m.matches()) {
            named.put(m.group(1), value);
          } else if (name.equals(PROVIDERS) || name.startsWith(PROVIDERS + ".")) {
            throw notAProviderSetting(name);
          }
        });
    return new LocksmithSettings(
        defaultUrl == null || defaultUrl.isBlank() ? null : defaultUrl.strip(),
        named,
        flag(properties, REQUIRE_PROVIDERS_AT_STARTUP));
  }

  /**
   * A key under {@code locksmith.providers} other than a named provider's {@code url}, which a
   * reader would otherwise drop: the provider's options are its URL's parameters.
   */
  private static LockConfigurationException notAProviderSetting(String name) {
    String message =
        name
            + " is not a setting: a named provider takes only url, with its options as URL"
            + " parameters (such as locksmith.providers.orders.url=redis://host:6379?prefix=orders)";
    String[] levels = name.split("\\.");
    if (levels.length > 4 && levels[levels.length - 1].equals("url")) {
      String joined = String.join("-", Arrays.copyOfRange(levels, 2, levels.length - 1));
      message +=
          "; a provider's name is one level, its words joined by '-' (locksmith.providers."
              + joined
              + ".url); where an environment variable set it, its words were read as levels:"
              + " set it in the application's properties, or name the provider in one word";
    }
    return new LockConfigurationException(message);
  }

  private static boolean flag(Map<String, String> properties, String name) {
    String value = properties.get(name);
    if (value == null || value.isBlank()) {
      return false;
    }
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new LockConfigurationException(
              "Setting " + name + " is '" + value.strip() + "'; expected true or false");
    };
  }

  private static Map<String, String> fromClasspath() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = LocksmithSettings.class.getClassLoader();
    }
    Map<String, String> result = new TreeMap<>();
    try (InputStream in = loader.getResourceAsStream("locksmith.properties")) {
      if (in != null) {
        Properties properties = new Properties();
        properties.load(in);
        properties.forEach((k, v) -> result.put(String.valueOf(k), String.valueOf(v)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read locksmith.properties", e);
    }
    return result;
  }
}
