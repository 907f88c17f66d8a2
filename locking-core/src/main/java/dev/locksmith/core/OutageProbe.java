package dev.locksmith.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The background probe of one provider's circuit: asks the provider whether it answers ({@link
 * ProviderCircuit#probeOnce}) after a delay, at most one probe due at a time, and again every probe
 * interval while the circuit stays open. Nothing is probed once the circuit stopped.
 */
final class OutageProbe {
  private final ProviderCircuit circuit;
  private final ProviderCircuit.Background background;
  private final Duration interval;
  private final AtomicBoolean due = new AtomicBoolean();

  OutageProbe(ProviderCircuit circuit, ProviderCircuit.Background background, Duration interval) {
    this.circuit = circuit;
    this.background = background;
    this.interval = interval;
  }

  /** Probes in the background after the delay, unless a probe is already due. */
  void after(Duration delay) {
    if (!circuit.isStopped() && due.compareAndSet(false, true)) {
      background.runAfter(delay, this::run);
    }
  }

  /** Probes in the background after the probe interval, unless a probe is already due. */
  void afterInterval() {
    after(interval);
  }

  private void run() {
    try {
      if (circuit.isStopped()) {
        return;
      }
      circuit.probeOnce();
    } finally {
      due.set(false);
      // Also after an Error in the probe: nothing else probes an open circuit, so it would stay
      // open, failing every call fast, for the engine's life.
      if (!circuit.isUp()) {
        afterInterval();
      }
    }
  }
}
