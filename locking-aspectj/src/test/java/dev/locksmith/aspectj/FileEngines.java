package dev.locksmith.aspectj;

import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.testkit.RecordingListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Engines on one shared lock directory ({@code file:} provider), new for each test: the one the
 * aspect uses, and others that stand for other processes contending for the same locks. Register it
 * with {@code @RegisterExtension}; it closes the engines and deletes the directory after each test,
 * after the test's own {@code @AfterEach} methods.
 */
final class FileEngines implements BeforeEachCallback, AfterEachCallback {
  private final List<AutoCloseable> open = new ArrayList<>();
  private @Nullable Path dir;

  /** What the aspect's engine reported in the current test. */
  final RecordingListener listener = new RecordingListener();

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("locksmith-aspectj");
    AspectLocksmith.use(engine(listener));
  }

  /** Another owner on the same directory, with its own provider instance. */
  Locksmith otherProcess() {
    return engine(new RecordingListener());
  }

  private Locksmith engine(RecordingListener events) {
    LockProvider provider = LockProviders.create("file://" + directory().toAbsolutePath());
    Locksmith engine = Locksmith.builder().defaultProvider(provider).listener(events).build();
    open.add(provider);
    open.add(engine);
    return engine;
  }

  private Path directory() {
    Path current = dir;
    if (current == null) {
      throw new IllegalStateException("FileEngines is used outside a test");
    }
    return current;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    AspectLocksmith.reset();
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    open.clear();
    // An engine's start-up probe may still be creating and removing its own files in the
    // directory for a moment after close; clear it until it stays empty.
    Path current = directory();
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions() // a file gone or added mid-walk: walk again
        .until(() -> deleteTree(current));
    dir = null;
  }

  private static boolean deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
    return !Files.exists(root);
  }
}
