package dev.locksmith.testkit;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link LockListener} that records what the engine reports, in order, as {@code kind lockId}
 * lines such as {@code acquired Billing.pay:42} ({@code kind} being the callback's name).
 */
public final class RecordingListener implements LockListener {
  private final List<String> events = new CopyOnWriteArrayList<>();

  /** A listener that has recorded nothing yet. */
  public RecordingListener() {}

  @Override
  public void acquired(LockEvent event, Duration waited) {
    record("acquired", event);
  }

  @Override
  public void busy(LockEvent event) {
    record("busy", event);
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    record("timedOut", event);
  }

  @Override
  public void released(LockEvent event, Duration held) {
    record("released", event);
  }

  @Override
  public void lost(LockEvent event, String reason) {
    record("lost", event);
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    record("error", event);
  }

  /**
   * What has been recorded so far, oldest first.
   *
   * @return what has been recorded so far, oldest first
   */
  public List<String> events() {
    return List.copyOf(events);
  }

  private void record(String kind, LockEvent event) {
    events.add(kind + " " + event.lockId());
  }
}
