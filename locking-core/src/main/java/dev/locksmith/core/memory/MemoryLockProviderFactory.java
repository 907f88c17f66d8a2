package dev.locksmith.core.memory;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.core.spi.SchemeProviderFactory;
import java.util.Set;

/**
 * Creates {@link MemoryLockProvider}s for {@code mem:} (the JVM-wide default store) and {@code
 * mem:NAME} (a named store).
 */
public final class MemoryLockProviderFactory extends SchemeProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public MemoryLockProviderFactory() {
    super(MemoryLockProviderFactory::provider, "mem");
  }

  private static LockProvider provider(ProviderUrl url) {
    url.requireOnly(Set.of());
    if (url.uri().getRawAuthority() != null) {
      throw url.error("has a host; use mem: or mem:NAME");
    }
    String name = url.uri().isOpaque() ? url.opaquePart() : url.path().replaceFirst("^/+", "");
    if (!name.matches("[A-Za-z0-9._-]*")) {
      throw url.error(
          "names store '" + name + "'; use mem: or mem:NAME with letters, digits, '.', '_', '-'");
    }
    return MemoryLockProvider.shared(name);
  }
}
