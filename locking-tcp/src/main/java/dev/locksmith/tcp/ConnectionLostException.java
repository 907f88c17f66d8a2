package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;

/** The connection closed before the reply came; the server released its leases then. */
final class ConnectionLostException extends LockProviderException {
  private static final long serialVersionUID = 1L;

  ConnectionLostException(String message) {
    super(message);
  }
}
