package dev.locksmith.file;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The providers a test opens, closed after it (after its own {@code @AfterEach} methods); register
 * one with {@code @RegisterExtension}.
 */
final class OpenedProviders implements AfterEachCallback {
  private final List<FileLockProvider> opened = new ArrayList<>();

  /** A provider on {@code directory} with URL query {@code query}, closed after the test. */
  FileLockProvider open(Path directory, String query) {
    FileLockProvider provider = TestProviders.open(directory, query);
    opened.add(provider);
    return provider;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    opened.forEach(FileLockProvider::close);
    opened.clear();
  }
}
