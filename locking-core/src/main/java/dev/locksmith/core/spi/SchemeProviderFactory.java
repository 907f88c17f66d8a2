package dev.locksmith.core.spi;

import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A {@link LockProviderFactory} for a fixed set of URL schemes whose providers one function makes,
 * so that a provider module's factory is its public constructor alone:
 *
 * <pre>{@code
 * public final class FileLockProviderFactory extends SchemeProviderFactory {
 *   public FileLockProviderFactory() {
 *     super(FileLockProviderFactory::provider, "file");
 *   }
 *   ...
 * }
 * }</pre>
 *
 * <p>The function follows {@link LockProviderFactory#create}'s rules: it checks the URL, fails with
 * a {@link dev.locksmith.core.LockConfigurationException} naming the wrong part, and never needs
 * the backend.
 */
public abstract class SchemeProviderFactory implements LockProviderFactory {
  private final Set<String> schemes;
  private final Function<ProviderUrl, ? extends LockProvider> create;

  /**
   * Creates the factory.
   *
   * @param create makes a provider for a parsed URL of one of the schemes
   * @param schemes the URL schemes, at least one
   */
  protected SchemeProviderFactory(
      Function<ProviderUrl, ? extends LockProvider> create, String... schemes) {
    this.create = Objects.requireNonNull(create, "create");
    this.schemes = Set.of(schemes);
    if (this.schemes.isEmpty()) {
      throw new IllegalArgumentException("a provider factory needs at least one scheme");
    }
  }

  @Override
  public final Set<String> schemes() {
    return schemes;
  }

  @Override
  public final LockProvider create(ProviderUrl url) {
    return create.apply(url);
  }
}
