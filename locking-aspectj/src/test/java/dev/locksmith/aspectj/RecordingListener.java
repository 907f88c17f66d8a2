package dev.locksmith.aspectj;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what the engine reports, as {@code kind lockId} lines. */
final class RecordingListener implements LockListener {
  private final List<String> events = new CopyOnWriteArrayList<>();

  @Override
  public void acquired(LockEvent event, Duration waited) {
    events.add("acquired " + event.lockId());
  }

  @Override
  public void busy(LockEvent event) {
    events.add("busy " + event.lockId());
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    events.add("timedOut " + event.lockId());
  }

  @Override
  public void released(LockEvent event, Duration held) {
    events.add("released " + event.lockId());
  }

  @Override
  public void lost(LockEvent event, String reason) {
    events.add("lost " + event.lockId());
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    events.add("error " + event.lockId());
  }

  List<String> events() {
    return List.copyOf(events);
  }
}
