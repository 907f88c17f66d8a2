package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.SchemeProviderFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Serves {@code outage:NAME} URLs (with {@code ?down=true}, {@code ?close-fails=true}) with {@link
 * OutageProvider}s, so that tests can check what the engine does with providers it creates from
 * settings. Remembers every provider it made.
 */
public final class OutageProviderFactory extends SchemeProviderFactory {
  static final List<OutageProvider> CREATED = new CopyOnWriteArrayList<>();

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public OutageProviderFactory() {
    super(OutageProviderFactory::provider, "outage");
  }

  private static LockProvider provider(ProviderUrl url) {
    url.requireOnly(Set.of("down", "close-fails"));
    OutageProvider provider = new OutageProvider("outage:" + url.opaquePart());
    provider.down.set(url.booleanParameter("down", false));
    provider.closeFails.set(url.booleanParameter("close-fails", false));
    CREATED.add(provider);
    return provider;
  }
}
