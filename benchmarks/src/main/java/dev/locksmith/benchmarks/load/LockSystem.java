package dev.locksmith.benchmarks.load;

/**
 * A lock system under test, such as the TCP lock server or raw Redis, which hands out clients.
 *
 * @param name the short name used in the report, such as {@code tcp}
 * @param description what exactly is measured, for the report
 * @param factory makes one client with the given number of connections, where that applies
 */
public record LockSystem(String name, String description, ClientFactory factory) {

  /** Makes a client. */
  @FunctionalInterface
  public interface ClientFactory {
    /** A new client; {@code connections} is a hint for systems that pool connections. */
    LockClient create(int connections) throws Exception;
  }

  /** A new client of this system. */
  public LockClient newClient(int connections) throws Exception {
    return factory.create(connections);
  }
}
