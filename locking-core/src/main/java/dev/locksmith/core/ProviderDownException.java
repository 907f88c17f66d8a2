package dev.locksmith.core;

/**
 * A locked call that failed fast, without calling its provider, because the provider's outage
 * circuit is open. Callers see a {@link LockProviderException}; the engine tells it apart from a
 * provider's own failure so that it neither counts it again nor logs it as news.
 */
final class ProviderDownException extends LockProviderException {
  private static final long serialVersionUID = 1L;

  ProviderDownException(String message) {
    super(message, false); // one line wherever it is logged: the outage itself was logged once
  }
}
