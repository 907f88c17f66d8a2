package dev.locksmith.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every event as a line such as {@code acquired Billing.pay:42}. */
final class RecordingListener implements LockListener {
  final List<String> events = new CopyOnWriteArrayList<>();

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
    events.add("error " + event.lockId() + " " + error.getMessage());
  }
}
