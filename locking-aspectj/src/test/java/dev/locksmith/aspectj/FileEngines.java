package dev.locksmith.aspectj;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Engines on one shared lock directory ({@code file:} provider): the one the aspect uses, and
 * others that stand for other processes contending for the same locks.
 */
final class FileEngines implements AutoCloseable {
  private final String url;
  private final List<AutoCloseable> open = new ArrayList<>();
  final RecordingListener listener = new RecordingListener();
  final Locksmith aspectEngine;

  FileEngines(Path dir) {
    this.url = "file://" + dir.toAbsolutePath();
    this.aspectEngine = engine(listener);
    AspectLocksmith.use(aspectEngine);
  }

  /** Another owner on the same directory, with its own provider instance. */
  Locksmith otherProcess() {
    return engine(new RecordingListener());
  }

  private Locksmith engine(RecordingListener events) {
    LockProvider provider = LockProviders.create(url);
    Locksmith engine = Locksmith.builder().defaultProvider(provider).listener(events).build();
    open.add(provider);
    open.add(engine);
    return engine;
  }

  @Override
  public void close() throws Exception {
    AspectLocksmith.reset();
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }
}
