package dev.locksmith.samples.micronaut;

import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what the locks do: every {@code LockListener} bean is told of each acquisition, busy
 * refusal, timeout and loss. A skipped tick of {@link StatementJob} shows up as {@code busy}.
 */
@Singleton
final class LockLog implements LockListener {
  private static final Logger LOG = LoggerFactory.getLogger(LockLog.class);

  @Override
  public void busy(LockEvent event) {
    LOG.info(
        "{} is held (elsewhere, or kept for its minHold): this call does not run", event.lockId());
  }

  @Override
  public void timedOut(LockEvent event, Duration waited) {
    LOG.warn("{}: gave up after waiting {}", event.lockId(), waited);
  }

  @Override
  public void lost(LockEvent event, String reason) {
    LOG.error("{} (fencing token {}) was lost: {}", event.lockId(), event.fencingToken(), reason);
  }
}
