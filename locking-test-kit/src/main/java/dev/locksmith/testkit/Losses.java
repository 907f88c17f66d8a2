package dev.locksmith.testkit;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records lost and error events with when the last loss was seen. */
final class Losses implements LockListener {
  final List<String> lost = new CopyOnWriteArrayList<>();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();
  volatile long lostAt;

  @Override
  public void lost(LockEvent event, String reason) {
    lostAt = System.nanoTime();
    lost.add(event.lockId() + ": " + reason);
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    errors.add(error);
  }
}
