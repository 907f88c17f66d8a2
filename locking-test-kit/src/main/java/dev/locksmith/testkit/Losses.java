package dev.locksmith.testkit;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records lost, released and error events with when the last loss was seen. The engine tells a
 * lease's release once its outcome is known, after any loss that outcome shows.
 */
final class Losses implements LockListener {
  final List<String> lost = new CopyOnWriteArrayList<>();
  final List<String> released = new CopyOnWriteArrayList<>();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();
  volatile long lostAt;

  @Override
  public void lost(LockEvent event, String reason) {
    lostAt = System.nanoTime();
    lost.add(event.lockId() + ": " + reason);
  }

  @Override
  public void released(LockEvent event, Duration held) {
    released.add(event.lockId());
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    errors.add(error);
  }
}
