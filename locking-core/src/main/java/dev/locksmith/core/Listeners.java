package dev.locksmith.core;

import dev.locksmith.core.spi.LockIdText;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells every listener, logging and otherwise ignoring a listener that throws. */
final class Listeners implements LockListener {
  private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

  private final List<LockListener> listeners;
  private final boolean allowIoThreads;

  Listeners(List<LockListener> listeners) {
    this.listeners = List.copyOf(listeners);
    this.allowIoThreads = this.listeners.stream().allMatch(LockListener::allowsIoThreads);
  }

  /** Whether every listener allows being told on a provider's I/O thread (true with none). */
  @Override
  public boolean allowsIoThreads() {
    return allowIoThreads;
  }

  @Override
  public void attached(Locksmith engine) {
    each(listener -> listener.attached(engine));
  }

  private void each(Consumer<LockListener> call) {
    for (LockListener listener : listeners) {
      try {
        call.accept(listener);
      } catch (RuntimeException e) {
        LOG.warn("Lock listener {} failed: {}", listener, Causes.oneLine(e));
        LOG.debug("Lock listener {} failed", listener, e);
      }
    }
  }

  @Override
  public void acquired(LockEvent event, Duration waited) {
    each(l -> l.acquired(event, waited));
  }

  @Override
  public void busy(LockEvent event) {
    each(l -> l.busy(event));
  }

  @Override
  public void busy(LockEvent event, Duration waited) {
    each(l -> l.busy(event, waited));
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    each(l -> l.timedOut(event, waited));
  }

  @Override
  public void released(LockEvent event, Duration held) {
    each(l -> l.released(event, held));
  }

  @Override
  public void lost(LockEvent event, String reason) {
    LOG.warn("Lease on lock {} lost: {}", LockIdText.quoted(event.lockId()), reason);
    each(l -> l.lost(event, reason));
  }

  @Override
  public void error(LockEvent event, Throwable error) {
    each(l -> l.error(event, error));
  }
}
