package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockProviderFactory;
import dev.locksmith.core.spi.ProviderUrl;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** Creates providers from URLs, with the factories found on the class path. */
public final class LockProviders {
  private LockProviders() {}

  /**
   * Creates a provider for a URL such as {@code tcp://host:7420} or {@code file:///mnt/locks}.
   *
   * @param url the provider URL
   * @return the provider
   */
  public static LockProvider create(String url) {
    return create(ProviderUrl.parse(url));
  }

  /**
   * Creates a provider for a parsed URL.
   *
   * @param url the parsed URL
   * @return the provider
   */
  public static LockProvider create(ProviderUrl url) {
    Map<String, LockProviderFactory> factories = factories();
    LockProviderFactory factory = factories.get(url.scheme());
    if (factory == null) {
      throw url.error(
          "has unknown scheme '"
              + url.scheme()
              + "'; known schemes: "
              + factories.keySet()
              + " (file:, tcp:// and redis:// need locking-file, locking-tcp or locking-redis on"
              + " the class path)");
    }
    return factory.create(url);
  }

  /** The factories on the class path by scheme. */
  static Map<String, LockProviderFactory> factories() {
    Map<String, LockProviderFactory> byScheme = new TreeMap<>();
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = LockProviders.class.getClassLoader();
    }
    for (LockProviderFactory factory : ServiceLoader.load(LockProviderFactory.class, loader)) {
      for (String scheme : factory.schemes()) {
        byScheme.putIfAbsent(scheme, factory);
      }
    }
    if (!byScheme.containsKey("mem")) {
      byScheme.put("mem", new dev.locksmith.core.memory.MemoryLockProviderFactory());
    }
    return byScheme;
  }
}
