package dev.locksmith.core;

import dev.locksmith.core.internal.KeyLanguage;
import java.util.Iterator;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/** Finds the key language on the class path, such as SpEL from {@code locking-spel}. */
final class KeyLanguages {
  private KeyLanguages() {}

  /**
   * The first {@link KeyLanguage} registered under {@code META-INF/services}, looked up through
   * core's class loader and then the thread's context class loader; {@code null} when there is
   * none, so that only literal keys can be used.
   *
   * @throws LockConfigurationException when a registered language cannot be loaded
   */
  static @Nullable KeyLanguage discover() {
    KeyLanguage found = first(KeyLanguage.class.getClassLoader());
    if (found != null) {
      return found;
    }
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context == null || context == KeyLanguage.class.getClassLoader() ? null : first(context);
  }

  private static @Nullable KeyLanguage first(@Nullable ClassLoader loader) {
    try {
      Iterator<KeyLanguage> languages = ServiceLoader.load(KeyLanguage.class, loader).iterator();
      return languages.hasNext() ? languages.next() : null;
    } catch (ServiceConfigurationError e) {
      throw new LockConfigurationException(
          "The key language registered in META-INF/services/"
              + KeyLanguage.class.getName()
              + " cannot be loaded: "
              + e.getMessage(),
          e);
    }
  }
}
