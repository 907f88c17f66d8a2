package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The providers an engine was built with, by name (the empty name is the default provider), and the
 * errors for a name that is not configured. Not to be confused with {@link LockProviders}, which
 * creates providers from URLs.
 */
final class ConfiguredProviders {
  static final String DEFAULT = "";

  private final Map<String, LockProvider> byName;

  ConfiguredProviders(Map<String, LockProvider> byName) {
    this.byName = Map.copyOf(byName);
  }

  @Nullable LockProvider get(String name) {
    return byName.get(name);
  }

  Map<String, LockProvider> all() {
    return byName;
  }

  /** The configured names as lock events give them, sorted. */
  SortedSet<String> displayNames() {
    SortedSet<String> names = new TreeSet<>();
    byName.keySet().forEach(name -> names.add(display(name)));
    return Collections.unmodifiableSortedSet(names);
  }

  static String display(String name) {
    return name.isEmpty() ? "default" : name;
  }

  MethodSpec.NamedProvider resolve(String name, String where) {
    LockProvider provider = byName.get(name);
    if (provider != null) {
      return new MethodSpec.NamedProvider(display(name), provider);
    }
    Map<String, LockProvider> named = new TreeMap<>(byName);
    named.remove(DEFAULT);
    if (name.isEmpty()) {
      throw new LockConfigurationException(
          where
              + ": no default provider is configured; set locksmith.url (system property,"
              + " LOCKSMITH_URL environment variable or locksmith.properties), e.g."
              + " locksmith.url=tcp://lockhost:7420"
              + (named.isEmpty() ? "" : ", or name one of " + named.keySet() + " in provider"));
    }
    throw new LockConfigurationException(
        where
            + ", attribute provider: no provider named '"
            + name
            + "' is configured; configured: "
            + (named.isEmpty() ? "none" : named.keySet())
            + " (set locksmith.providers."
            + name
            + ".url)");
  }

  /**
   * Creates the providers that {@code settings} name by URL and {@code providers} lacks, into
   * {@code providers} and {@code owned} (the engine closes those). One bad URL closes what this
   * call created, so a retry leaks nothing.
   */
  static void createFrom(
      LocksmithSettings settings, Map<String, LockProvider> providers, List<LockProvider> owned) {
    int before = owned.size();
    try {
      String url = settings.defaultUrl();
      if (url != null && !providers.containsKey(DEFAULT)) {
        LockProvider provider = LockProviders.create(url);
        owned.add(provider);
        providers.put(DEFAULT, provider);
      }
      for (Map.Entry<String, String> named : settings.providerUrls().entrySet()) {
        if (!providers.containsKey(named.getKey())) {
          LockProvider provider = LockProviders.create(named.getValue());
          owned.add(provider);
          providers.put(named.getKey(), provider);
        }
      }
    } catch (RuntimeException e) {
      while (owned.size() > before) {
        LockProvider created = owned.remove(owned.size() - 1);
        providers.values().removeIf(p -> p == created);
        created.close();
      }
      throw e;
    }
  }
}
