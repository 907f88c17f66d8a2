package dev.locksmith.tcp.server;

/**
 * The most one connection of the server has had queued at once since the start, by queue; for tests
 * and health. Thread-safe.
 *
 * @param inFlight core tasks queued or running; never above {@link ServerHandler#MAX_IN_FLIGHT}
 * @param backlog lines split from the input and waiting to be handed to the core
 * @param outbound bytes of replies waiting for the socket
 */
record ConnectionPeaks(Peak inFlight, Peak backlog, Peak outbound) {
  ConnectionPeaks() {
    this(new Peak(), new Peak(), new Peak());
  }
}
