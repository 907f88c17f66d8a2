package dev.locksmith.file;

import dev.locksmith.core.spi.SchemeProviderFactory;

/**
 * Creates file providers for {@code file:///absolute/dir?skew=2s&poll-max=250ms}: lock files in a
 * directory shared by every host that contends. The URL parameters are listed in the module README;
 * a wrong parameter, or a path that is a file, fails here; creation does not touch the directory
 * otherwise, and a missing or unwritable one fails each call, naming it, until it is usable.
 */
public final class FileLockProviderFactory extends SchemeProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public FileLockProviderFactory() {
    super(url -> new FileLockProvider(FileLockSettings.from(url), url.redacted()), "file");
  }
}
