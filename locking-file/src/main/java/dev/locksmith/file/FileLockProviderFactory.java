package dev.locksmith.file;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockProviderFactory;
import dev.locksmith.core.spi.ProviderUrl;
import java.util.Set;

/**
 * Creates file providers for {@code file:///absolute/dir?skew=2s&poll-max=250ms}: lock files in a
 * directory shared by every host that contends. The URL parameters are listed in the module README;
 * a missing, non-directory or unwritable path fails here, naming the path.
 */
public final class FileLockProviderFactory implements LockProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public FileLockProviderFactory() {}

  @Override
  public Set<String> schemes() {
    return Set.of("file");
  }

  @Override
  public LockProvider create(ProviderUrl url) {
    FileLockSettings settings = FileLockSettings.from(url);
    return new FileLockProvider(settings, url.redacted());
  }
}
