package dev.locksmith.cli;

import dev.locksmith.testkit.LoopbackPorts;

/** Loopback ports for tests. */
final class Ports {
  private Ports() {}

  /**
   * A port nothing listens on: free now, and below the range the system hands out by itself, so no
   * outgoing connection takes it (nor connects to itself through it) while a test uses it.
   */
  static int closed() {
    return LoopbackPorts.free();
  }
}
