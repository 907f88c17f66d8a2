package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.SchemeProviderFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Serves {@code outage:NAME} and {@code outage:NAME?down=true} URLs with {@link OutageProvider}s,
 * so that tests can check what the engine does with providers it creates from settings. Remembers
 * every provider it made.
 */
public final class OutageProviderFactory extends SchemeProviderFactory {
  static final List<OutageProvider> CREATED = new CopyOnWriteArrayList<>();

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public OutageProviderFactory() {
    super(OutageProviderFactory::provider, "outage");
  }

  private static LockProvider provider(ProviderUrl url) {
    url.requireOnly(Set.of("down"));
    OutageProvider provider = new OutageProvider("outage:" + url.opaquePart());
    provider.down.set(url.booleanParameter("down", false));
    CREATED.add(provider);
    return provider;
  }
}
