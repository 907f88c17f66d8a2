package dev.locksmith.cli;

import java.io.IOException;
import java.net.ServerSocket;

/** Loopback ports for tests. */
final class Ports {
  private Ports() {}

  /** A port nothing listens on: one the system just handed out and that is closed again. */
  static int closed() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
